# Macro {due} (queue[c].due, c = #q.c): search step 1 (stride 2); see core/q/bs_start.
# Goes on at c + 1 when due <= #q.d, else at c - 1: adds 2 when it is, then takes 1
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 2
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 1
function doom.schedule:core/q/bs/0 with storage doom.schedule:ctx q
