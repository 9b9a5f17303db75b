# Binary search step (tail call). Invariant: queue[#q.lo].due <= #q.d < queue[#q.hi].due.
# Ends with ctx q.i = #q.hi, the insertion index. Changes: #q.lo, #q.hi, #q.m, ctx q.
scoreboard players operation #q.m doom.schedule = #q.hi doom.schedule
scoreboard players operation #q.m doom.schedule -= #q.lo doom.schedule
execute if score #q.m doom.schedule matches ..1 run return run execute store result storage doom.schedule:ctx q.i int 1 run scoreboard players get #q.hi doom.schedule
scoreboard players operation #q.m doom.schedule /= #2 doom.schedule
execute store result storage doom.schedule:ctx q.i int 1 run scoreboard players operation #q.m doom.schedule += #q.lo doom.schedule
function doom.schedule:core/q/probe with storage doom.schedule:ctx q
function doom.schedule:core/q/search
