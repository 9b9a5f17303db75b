# Macro {due} (queue[c].due, c = #q.c): search step 18 (stride 262144); see core/q/bs_start.
# Goes on at c + 131072 when due <= #q.d, else at c - 131072: adds 262144 when it is, then takes 131072
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 262144
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 131072
function doom.schedule:core/q/bs/17 with storage doom.schedule:ctx q
