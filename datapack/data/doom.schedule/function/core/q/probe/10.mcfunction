# Macro {due} (queue[c].due, c = #q.c): search step 10 (stride 1024); see core/q/bs_start.
# Goes on at c + 512 when due <= #q.d, else at c - 512: adds 1024 when it is, then takes 512
# off and stores the result (one conditional stage, one store). Changes: #q.c, ctx q.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 1024
execute store result storage doom.schedule:ctx q.c int 1 run scoreboard players remove #q.c doom.schedule 512
function doom.schedule:core/q/bs/9 with storage doom.schedule:ctx q
