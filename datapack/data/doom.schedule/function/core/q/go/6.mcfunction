# Macro {due} = queue[128].due: the first search step of core/q/bs_start at stride 128, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[128] is due at or before #q.d (j >= 128), j is in [n - 1 - 128, n - 2],
# else in [0, 127]: either way a range of 128 indices whose base plus strides 64 .. 1 stays
# in range. Goes on at base + 64 (ctx q.c is set to 64 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 64
data modify storage doom.schedule:ctx q.c set value 64
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 129
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/6 with storage doom.schedule:ctx q
