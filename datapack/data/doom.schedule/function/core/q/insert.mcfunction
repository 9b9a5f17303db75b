# Inserts the task ctx t.new (due in #q.d) into data queue after every task due at or before it.
# O(1) when it goes last or first, else a binary search (O(log n)). Returns 1. Changes: queue, #head.
execute unless data storage doom.schedule:data queue[0] run return run function doom.schedule:core/q/first
execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[-1].due
execute if score #q.v doom.schedule <= #q.d doom.schedule run return run data modify storage doom.schedule:data queue append from storage doom.schedule:ctx t.new
execute if score #head doom.schedule > #q.d doom.schedule run return run function doom.schedule:core/q/first
execute store result score #q.n doom.schedule if data storage doom.schedule:data queue[]
function doom.schedule:core/q/bs_start
return 1
