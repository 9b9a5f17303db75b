# Macro {due} (queue[c].due, c = #q.c): search step 6 (stride 64); see core/q/bs_start.
# Goes on at c + 32 when due <= #q.d, else at c - 32: adds 64 when it is, then takes 32
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 64
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 32
function doom.schedule:core/q/bs/5 with storage doom.schedule:ctx q
