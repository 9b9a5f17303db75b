# Macro {i}: compares queue[i].due with #q.d and narrows [#q.lo, #q.hi] to the half holding the
# insertion point. Changes: #q.v, #q.lo or #q.hi.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(i)].due
execute if score #q.v doom.schedule <= #q.d doom.schedule run return run scoreboard players operation #q.lo doom.schedule = #q.m doom.schedule
scoreboard players operation #q.hi doom.schedule = #q.m doom.schedule
