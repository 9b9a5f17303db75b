# Macro {due} = queue[131072].due: the first search step of core/q/bs_start at stride 131072, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[131072] is due at or before #q.d (j >= 131072), j is in [n - 1 - 131072, n - 2],
# else in [0, 131071]: either way a range of 131072 indices whose base plus strides 65536 .. 1 stays
# in range. Goes on at base + 65536 (ctx q.c is set to 65536 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 65536
data modify storage doom.schedule:ctx q.c set value 65536
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 131073
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/16 with storage doom.schedule:ctx q
