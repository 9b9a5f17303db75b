# Removes the first task with id ctx c.id: queue, then offline, then paused (a task due later in
# the current tick is still in the queue). Returns 1, or fails. Changes: lists, out.
execute unless function doom.schedule:core/check/c_id run return run function doom.schedule:core/err {code:"bad_id",message:"id must be 1 to 64 characters from A-Z a-z 0-9 _ . + -"}
data modify storage doom.schedule:out id set from storage doom.schedule:ctx c.id
data modify storage doom.schedule:ctx c.with_paused set value 1b
execute unless function doom.schedule:core/op/take_first run return run function doom.schedule:core/err {code:"not_found",message:"no task has this id"}
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"cancelled",count:1}
return 1
