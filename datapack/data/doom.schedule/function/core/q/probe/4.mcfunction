# Macro {due} (queue[c].due, c = #q.c): search step 4 (stride 16); see core/q/bs_start.
# Goes on at c + 8 when due <= #q.d, else at c - 8: adds 16 when it is, then takes 8
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 16
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 8
function doom.schedule:core/q/bs/3 with storage doom.schedule:ctx q
