# Puts ctx t.new at the front of data queue (it is due before all others) and refreshes #head.
# Returns 1. Changes: queue, #head.
data modify storage doom.schedule:data queue insert 0 from storage doom.schedule:ctx t.new
function doom.schedule:core/q/head
return 1
