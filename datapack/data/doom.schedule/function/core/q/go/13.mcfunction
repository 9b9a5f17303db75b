# Macro {due} = queue[16384].due: the first search step of core/q/bs_start at stride 16384, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[16384] is due at or before #q.d (j >= 16384), j is in [n - 1 - 16384, n - 2],
# else in [0, 16383]: either way a range of 16384 indices whose base plus strides 8192 .. 1 stays
# in range. Goes on at base + 8192 (ctx q.c is set to 8192 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 8192
data modify storage doom.schedule:ctx q.c set value 8192
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 16385
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/13 with storage doom.schedule:ctx q
