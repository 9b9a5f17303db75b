# Macro {k,m,m1,h}: the first search step, at stride m = 2^(k+1), the largest power of two <= n - 2
# (n = #q.n). The last task due at or before #q.d has an index j in [0, n - 2]. If queue[m] is
# due at or before #q.d (j >= m), j is in [n - 1 - m, n - 2], else in [0, m - 1]: either way a range of m indices
# whose base plus strides m/2 .. 1 stays in range. Goes on at base + h (h = m/2), m1 = m + 1.
# (ctx q.c is set to base h by the macro and overwritten only when the base moves.)
# Changes: #q.c, #q.v, #q.n, ctx q.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(m)].due
$scoreboard players set #q.c doom.schedule $(h)
$data modify storage doom.schedule:ctx q.c set value $(h)
$execute if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players remove #q.n doom.schedule $(m1)
execute if score #q.v doom.schedule <= #q.d doom.schedule store result storage doom.schedule:ctx q.c int 1 run scoreboard players operation #q.c doom.schedule += #q.n doom.schedule
$function doom.schedule:core/q/bs/$(k) with storage doom.schedule:ctx q
