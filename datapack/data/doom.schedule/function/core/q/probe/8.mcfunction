# Macro {due} (queue[c].due, c = #q.c): search step 8 (stride 256); see core/q/bs_start.
# Goes on at c + 128 when due <= #q.d, else at c - 128: adds 256 when it is, then takes 128
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 256
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 128
function doom.schedule:core/q/bs/7 with storage doom.schedule:ctx q
