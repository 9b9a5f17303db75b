# Macro {due} = queue[512].due: the first search step of core/q/bs_start at stride 512, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[512] is due at or before #q.d (j >= 512), j is in [n - 1 - 512, n - 2],
# else in [0, 511]: either way a range of 512 indices whose base plus strides 256 .. 1 stays
# in range. Goes on at base + 256 (ctx q.c is set to 256 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 256
data modify storage doom.schedule:ctx q.c set value 256
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 513
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/8 with storage doom.schedule:ctx q
