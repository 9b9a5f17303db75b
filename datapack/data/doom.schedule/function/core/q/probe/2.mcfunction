# Macro {due} (queue[c].due, c = #q.c): search step 2 (stride 4); see core/q/bs_start.
# Goes on at c + 2 when due <= #q.d, else at c - 2: adds 4 when it is, then takes 2
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 4
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 2
function doom.schedule:core/q/bs/1 with storage doom.schedule:ctx q
