# Macro {due} = queue[8192].due: the first search step of core/q/bs_start at stride 8192, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[8192] is due at or before #q.d (j >= 8192), j is in [n - 1 - 8192, n - 2],
# else in [0, 8191]: either way a range of 8192 indices whose base plus strides 4096 .. 1 stays
# in range. Goes on at base + 4096 (ctx q.c is set to 4096 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 4096
data modify storage doom.schedule:ctx q.c set value 4096
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 8193
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/12 with storage doom.schedule:ctx q
