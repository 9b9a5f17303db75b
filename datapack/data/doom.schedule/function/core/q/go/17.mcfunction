# Macro {due} = queue[262144].due: the first search step of core/q/bs_start at stride 262144, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[262144] is due at or before #q.d (j >= 262144), j is in [n - 1 - 262144, n - 2],
# else in [0, 262143]: either way a range of 262144 indices whose base plus strides 131072 .. 1 stays
# in range. Goes on at base + 131072 (ctx q.c is set to 131072 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 131072
data modify storage doom.schedule:ctx q.c set value 131072
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 262145
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/17 with storage doom.schedule:ctx q
