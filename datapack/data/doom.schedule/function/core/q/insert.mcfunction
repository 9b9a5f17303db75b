# Inserts the task ctx t.new (due in #q.d) into data queue after every task due at or before it.
# O(1) when it goes last or first, else a binary search (O(log n)). Returns 1. Changes: queue, #head.
execute unless data storage doom.schedule:data queue[0] run return run function doom.schedule:core/q/first
execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[-1].due
execute if score #q.v doom.schedule <= #q.d doom.schedule run return run data modify storage doom.schedule:data queue append from storage doom.schedule:ctx t.new
execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[0].due
execute if score #q.v doom.schedule > #q.d doom.schedule run return run function doom.schedule:core/q/first
scoreboard players set #q.lo doom.schedule 0
execute store result score #q.hi doom.schedule run data get storage doom.schedule:data queue
scoreboard players remove #q.hi doom.schedule 1
function doom.schedule:core/q/search
function doom.schedule:core/q/insert_at with storage doom.schedule:ctx q
return 1
