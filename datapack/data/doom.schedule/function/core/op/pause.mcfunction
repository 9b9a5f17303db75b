# Moves the first task with id ctx c.id (queue, then offline) to paused with remaining = ticks left
# until its due tick (0 if overdue). Returns 1, or fails. Changes: lists, out.
execute unless function doom.schedule:core/check/c_id run return run function doom.schedule:core/err {code:"bad_id",message:"id must be 1 to 64 characters from A-Z a-z 0-9 _ . + -"}
data modify storage doom.schedule:out id set from storage doom.schedule:ctx c.id
data modify storage doom.schedule:ctx c.with_paused set value 0b
execute unless function doom.schedule:core/op/take_first run return run function doom.schedule:core/err {code:"not_found",message:"no queued or parked task has this id"}
execute store result score #c.r doom.schedule run data get storage doom.schedule:ctx c.task.due
execute store result score #c.g doom.schedule run time query gametime
scoreboard players operation #c.r doom.schedule -= #c.g doom.schedule
execute if score #c.r doom.schedule matches ..-1 run scoreboard players set #c.r doom.schedule 0
execute store result storage doom.schedule:ctx c.task.remaining int 1 run scoreboard players get #c.r doom.schedule
data modify storage doom.schedule:data paused append from storage doom.schedule:ctx c.task
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"paused"}
return 1
