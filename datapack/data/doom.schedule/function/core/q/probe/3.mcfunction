# Macro {due} (queue[c].due, c = #q.c): search step 3 (stride 8); see core/q/bs_start.
# Goes on at c + 4 when due <= #q.d, else at c - 4: adds 8 when it is, then takes 4
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 8
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 4
function doom.schedule:core/q/bs/2 with storage doom.schedule:ctx q
