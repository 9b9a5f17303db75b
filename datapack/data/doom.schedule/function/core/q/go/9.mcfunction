# Macro {due} = queue[1024].due: the first search step of core/q/bs_start at stride 1024, the largest
# power of two <= n - 2 (n = #q.n). The last task due at or before #q.d has an index j in
# [0, n - 2]. If queue[1024] is due at or before #q.d (j >= 1024), j is in [n - 1 - 1024, n - 2],
# else in [0, 1023]: either way a range of 1024 indices whose base plus strides 512 .. 1 stays
# in range. Goes on at base + 512 (ctx q.c is set to 512 and overwritten only when the base
# moves). Changes: #q.c, #q.n, ctx q.
scoreboard players set #q.c doom.schedule 512
data modify storage doom.schedule:ctx q.c set value 512
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players remove #q.n doom.schedule 1025
$execute if score #q.d doom.schedule matches $(due).. store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
function doom.schedule:core/q/bs/9 with storage doom.schedule:ctx q
