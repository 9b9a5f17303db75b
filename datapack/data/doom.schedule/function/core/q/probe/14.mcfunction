# Macro {due} (queue[c].due, c = #q.c): search step 14 (stride 16384); see core/q/bs_start.
# Goes on at c + 8192 when due <= #q.d, else at c - 8192: adds 16384 when it is, then takes 8192
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 16384
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 8192
function doom.schedule:core/q/bs/13 with storage doom.schedule:ctx q
