# Macro {due} = the last task's due (see core/q/insert): appends ctx t.new when it is due at or
# after it, puts it first when it is due before the head, else searches (core/q/bs_start).
# Changes: queue, #head, #q.n, see core/q/bs_start.
$execute if score #q.d doom.schedule matches $(due).. run return run data modify storage doom.schedule:data queue append from storage doom.schedule:ctx t.new
execute if score #head doom.schedule > #q.d doom.schedule run return run function doom.schedule:core/q/first
execute store result score #q.n doom.schedule if data storage doom.schedule:data queue[]
function doom.schedule:core/q/bs_start
