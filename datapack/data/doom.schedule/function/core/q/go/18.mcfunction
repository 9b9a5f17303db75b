# Macro {due} = queue[524288].due: the first search step of core/q/bs_start at stride 524288, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[524288] is due at or before #q.d (j >= 524288), j is in [n - 1 - 524288, n - 2],
# else in [0, 524287]: either way a range of 524288 indices whose base plus strides 262144 .. 1 stays
# in range. Goes on at base + 262144 (ctx q.c is set to 262144 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 262144
data modify storage doom.schedule:ctx q.c set value 262144
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 524289
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/18 with storage doom.schedule:ctx q
