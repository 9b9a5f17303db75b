# Macro {due} (queue[c].due, c = #q.c): search step 16 (stride 65536); see core/q/bs_start.
# Goes on at c + 32768 when due <= #q.d, else at c - 32768: adds 65536 when it is, then takes 32768
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 65536
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 32768
function doom.schedule:core/q/bs/15 with storage doom.schedule:ctx q
