# Macro {c}: search step 8 (stride 256); see core/q/insert. Reads queue[c] (nothing past the end:
# the next line checks c < #q.n before using it). Accepts c when c < #q.n and
# queue[c].due <= #q.d, then goes on at c +/- 128. Changes: #q.c, #q.v, ctx q.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(c)].due
execute if score #q.c doom.schedule < #q.n doom.schedule if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players add #q.c doom.schedule 256
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 128
function doom.schedule:core/q/bs/7 with storage doom.schedule:ctx q
