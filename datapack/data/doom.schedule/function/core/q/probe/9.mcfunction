# Macro {due} (queue[c].due, c = #q.c): search step 9 (stride 512); see core/q/bs_start.
# Goes on at c + 256 when due <= #q.d, else at c - 256: adds 512 when it is, then takes 256
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 512
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 256
function doom.schedule:core/q/bs/8 with storage doom.schedule:ctx q
