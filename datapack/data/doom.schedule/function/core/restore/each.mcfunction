# Re-queues ctx r.l[0], due now if overdue, with one restored event; then the next (tail call).
# Changes: queue, events, ctx r.l.
data modify storage doom.schedule:ctx t.new set from storage doom.schedule:ctx r.l[0]
data remove storage doom.schedule:ctx r.l[0]
execute store result score #r.g doom.schedule run time query gametime
execute store result score #q.d doom.schedule run data get storage doom.schedule:ctx t.new.due
execute if score #q.d doom.schedule < #r.g doom.schedule run scoreboard players operation #q.d doom.schedule = #r.g doom.schedule
execute store result storage doom.schedule:ctx t.new.due int 1 run scoreboard players get #q.d doom.schedule
function doom.schedule:core/q/insert
data modify storage doom.schedule:ctx e set value {type:"restored"}
data modify storage doom.schedule:ctx e.id set from storage doom.schedule:ctx t.new.id
data modify storage doom.schedule:ctx e.by set from storage doom.schedule:ctx t.new.executor
function doom.schedule:core/event/raise
execute if data storage doom.schedule:ctx r.l[0] run function doom.schedule:core/restore/each
