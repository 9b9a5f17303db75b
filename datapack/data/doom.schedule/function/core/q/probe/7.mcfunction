# Macro {due} (queue[c].due, c = #q.c): search step 7 (stride 128); see core/q/bs_start.
# Goes on at c + 64 when due <= #q.d, else at c - 64: adds 128 when it is, then takes 64
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 128
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 64
function doom.schedule:core/q/bs/6 with storage doom.schedule:ctx q
