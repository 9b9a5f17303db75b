# Inserts the task ctx t.new (due in #q.d) into data queue after every task due at or before it.
# O(1) when it goes last (core/q/tail gets the last task as its macro arguments) or first, else a
# binary search (O(log n)). Returns 1. Changes: queue, #head.
execute unless data storage doom.schedule:data queue[0] run return run function doom.schedule:core/q/first
function doom.schedule:core/q/tail with storage doom.schedule:data queue[-1]
return 1
