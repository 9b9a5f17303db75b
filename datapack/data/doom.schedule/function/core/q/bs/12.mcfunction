# Macro {c}: search step 12 (stride 4096); see core/q/bs_start. Reads queue[c] (always in
# range) and goes on at c + 2048 when queue[c].due <= #q.d, else at c - 2048: adds 4096 when it
# is, then takes 2048 off and stores the result (one conditional stage, one store: the cheapest
# form under vanilla's budget). Changes: #q.c, #q.v, ctx q.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(c)].due
execute if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players add #q.c doom.schedule 4096
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 2048
function doom.schedule:core/q/bs/11 with storage doom.schedule:ctx q
