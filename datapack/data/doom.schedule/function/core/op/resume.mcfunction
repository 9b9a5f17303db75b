# Moves the first paused task with id ctx c.id back to the queue, due its remaining delay from now
# (an interval task is re-anchored there). Returns 1, or fails. Changes: lists, out.
execute unless function doom.schedule:core/check/c_id run return run function doom.schedule:core/err {code:"bad_id",message:"id must be 1 to 64 characters from A-Z a-z 0-9 _ . + -"}
data modify storage doom.schedule:out id set from storage doom.schedule:ctx c.id
data modify storage doom.schedule:ctx c.list set value "paused"
scoreboard players set #c.ok doom.schedule 0
execute store success score #c.ok doom.schedule run function doom.schedule:core/op/take with storage doom.schedule:ctx c
execute if score #c.ok doom.schedule matches 0 run return run function doom.schedule:core/err {code:"not_found",message:"no paused task has this id"}
data modify storage doom.schedule:ctx t.new set from storage doom.schedule:ctx c.task
data remove storage doom.schedule:ctx t.new.remaining
execute store result score #q.d doom.schedule run data get storage doom.schedule:ctx c.task.remaining
execute store result score #c.g doom.schedule run time query gametime
execute store result storage doom.schedule:ctx t.new.due int 1 run scoreboard players operation #q.d doom.schedule += #c.g doom.schedule
execute store result storage doom.schedule:ctx t.new.anchor int 1 run scoreboard players get #q.d doom.schedule
function doom.schedule:core/q/insert
data modify storage doom.schedule:out due set from storage doom.schedule:ctx t.new.due
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"resumed"}
return 1
