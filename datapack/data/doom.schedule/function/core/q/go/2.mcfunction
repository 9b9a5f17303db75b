# Macro {due} = queue[8].due: the first search step of core/q/bs_start at stride 8, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[8] is due at or before #q.d (j >= 8), j is in [n - 1 - 8, n - 2],
# else in [0, 7]: either way a range of 8 indices whose base plus strides 4 .. 1 stays
# in range. Goes on at base + 4 (ctx q.c is set to 4 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 4
data modify storage doom.schedule:ctx q.c set value 4
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 9
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/2 with storage doom.schedule:ctx q
