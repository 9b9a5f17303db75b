# Macro {due} (queue[c].due, c = #q.c): search step 11 (stride 2048); see core/q/bs_start.
# Goes on at c + 1024 when due <= #q.d, else at c - 1024: adds 2048 when it is, then takes 1024
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 2048
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 1024
function doom.schedule:core/q/bs/10 with storage doom.schedule:ctx q
