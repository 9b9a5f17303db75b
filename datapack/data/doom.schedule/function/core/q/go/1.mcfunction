# Macro {due} = queue[4].due: the first search step of core/q/bs_start at stride 4, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[4] is due at or before #q.d (j >= 4), j is in [n - 1 - 4, n - 2],
# else in [0, 3]: either way a range of 4 indices whose base plus strides 2 .. 1 stays
# in range. Goes on at base + 2 (ctx q.c is set to 2 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 2
data modify storage doom.schedule:ctx q.c set value 2
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 5
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/1 with storage doom.schedule:ctx q
