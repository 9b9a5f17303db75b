# Macro {due} (queue[c].due, c = #q.c): search step 19 (stride 524288); see core/q/bs_start.
# Goes on at c + 262144 when due <= #q.d, else at c - 262144: adds 524288 when it is, then takes 262144
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 524288
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 262144
function doom.schedule:core/q/bs/18 with storage doom.schedule:ctx q
