# Macro {due} (queue[c].due, c = #q.c): search step 12 (stride 4096); see core/q/bs_start.
# Goes on at c + 2048 when due <= #q.d, else at c - 2048: adds 4096 when it is, then takes 2048
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 4096
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 2048
function doom.schedule:core/q/bs/11 with storage doom.schedule:ctx q
