# Macro {due} (queue[c].due, c = #q.c): search step 15 (stride 32768); see core/q/bs_start.
# Goes on at c + 16384 when due <= #q.d, else at c - 16384: adds 32768 when it is, then takes 16384
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 32768
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 16384
function doom.schedule:core/q/bs/14 with storage doom.schedule:ctx q
