# Macro {c}: search step 20 (stride 1048576); see core/q/insert. Reads queue[c] (nothing past the end:
# the next line checks c < #q.n before using it). Accepts c when c < #q.n and
# queue[c].due <= #q.d, then goes on at c +/- 524288. Changes: #q.c, #q.v, ctx q.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(c)].due
execute if score #q.c doom.schedule < #q.n doom.schedule if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players add #q.c doom.schedule 1048576
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 524288
function doom.schedule:core/q/bs/19 with storage doom.schedule:ctx q
