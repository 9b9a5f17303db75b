# Macro {due} = queue[32768].due: the first search step of core/q/bs_start at stride 32768, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[32768] is due at or before #q.d (j >= 32768), j is in [n - 1 - 32768, n - 2],
# else in [0, 32767]: either way a range of 32768 indices whose base plus strides 16384 .. 1 stays
# in range. Goes on at base + 16384 (ctx q.c is set to 16384 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 16384
data modify storage doom.schedule:ctx q.c set value 16384
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 32769
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/14 with storage doom.schedule:ctx q
