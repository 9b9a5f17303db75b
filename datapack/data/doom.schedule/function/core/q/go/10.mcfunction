# Macro {due} = queue[2048].due: the first search step of core/q/bs_start at stride 2048, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[2048] is due at or before #q.d (j >= 2048), j is in [n - 1 - 2048, n - 2],
# else in [0, 2047]: either way a range of 2048 indices whose base plus strides 1024 .. 1 stays
# in range. Goes on at base + 1024 (ctx q.c is set to 1024 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 1024
data modify storage doom.schedule:ctx q.c set value 1024
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 2049
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/10 with storage doom.schedule:ctx q
