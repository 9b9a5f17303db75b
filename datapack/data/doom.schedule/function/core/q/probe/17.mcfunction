# Macro {due} (queue[c].due, c = #q.c): search step 17 (stride 131072); see core/q/bs_start.
# Goes on at c + 65536 when due <= #q.d, else at c - 65536: adds 131072 when it is, then takes 65536
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 131072
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 65536
function doom.schedule:core/q/bs/16 with storage doom.schedule:ctx q
