# Macro {c}: search step 14 (stride 16384); see core/q/bs_start. Reads queue[c] (always in
# range) and goes on at c + 8192 when queue[c].due <= #q.d, else at c - 8192: adds 16384 when it
# is, then takes 8192 off and stores the result (one conditional stage, one store: the cheapest
# form under vanilla's budget). Changes: #q.c, #q.v, ctx q.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(c)].due
execute if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players add #q.c doom.schedule 16384
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 8192
function doom.schedule:core/q/bs/13 with storage doom.schedule:ctx q
