# Takes the first task with id ctx c.id from queue, then offline, then (when ctx c.with_paused is
# 1b) paused, into ctx c.task. Returns 1, or fails. Changes: see core/op/take.
scoreboard players set #c.ok doom.schedule 0
data modify storage doom.schedule:ctx c.list set value "queue"
execute store success score #c.ok doom.schedule run function doom.schedule:core/op/take with storage doom.schedule:ctx c
execute if score #c.ok doom.schedule matches 1 run return 1
data modify storage doom.schedule:ctx c.list set value "offline"
execute store success score #c.ok doom.schedule run function doom.schedule:core/op/take with storage doom.schedule:ctx c
execute if score #c.ok doom.schedule matches 1 run return 1
execute unless data storage doom.schedule:ctx c{with_paused:1b} run return fail
data modify storage doom.schedule:ctx c.list set value "paused"
execute store success score #c.ok doom.schedule run function doom.schedule:core/op/take with storage doom.schedule:ctx c
execute if score #c.ok doom.schedule matches 1 run return 1
return fail
