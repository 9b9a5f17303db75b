# Macro {due} (queue[c].due, c = #q.c): search step 13 (stride 8192); see core/q/bs_start.
# Goes on at c + 4096 when due <= #q.d, else at c - 4096: adds 8192 when it is, then takes 4096
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 8192
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 4096
function doom.schedule:core/q/bs/12 with storage doom.schedule:ctx q
