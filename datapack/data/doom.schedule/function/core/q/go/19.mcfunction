# Macro {due} = queue[1048576].due: the first search step of core/q/bs_start at stride 1048576, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[1048576] is due at or before #q.d (j >= 1048576), j is in [n - 1 - 1048576, n - 2],
# else in [0, 1048575]: either way a range of 1048576 indices whose base plus strides 524288 .. 1 stays
# in range. Goes on at base + 524288 (ctx q.c is set to 524288 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 524288
data modify storage doom.schedule:ctx q.c set value 524288
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 1048577
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/19 with storage doom.schedule:ctx q
