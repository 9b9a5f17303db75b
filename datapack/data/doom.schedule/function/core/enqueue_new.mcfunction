# Completes task ctx t.new (due #q.d, serial, caller context) and inserts it in the queue.
# Returns 1. Changes: serial, queue, out.
execute store result storage doom.schedule:ctx t.new.due int 1 run scoreboard players get #q.d doom.schedule
execute if data storage doom.schedule:ctx t.interval run function doom.schedule:core/anchor
execute store result storage doom.schedule:ctx t.new.n int 1 run scoreboard players add #serial doom.schedule 1
function doom.schedule:core/ctx/capture
function doom.schedule:core/q/insert
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"scheduled"}
data modify storage doom.schedule:out due set from storage doom.schedule:ctx t.new.due
data modify storage doom.schedule:out n set from storage doom.schedule:ctx t.new.n
return 1
