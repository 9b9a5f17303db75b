# ctx t.prefix given: checks it (1 to 54 id characters), makes the id <prefix><n> with the next
# dynamic counter n, and queues. Returns n, or fails. Changes: dyn, see core/enqueue_timed.
data modify storage doom.schedule:ctx k set value {}
data modify storage doom.schedule:ctx k.id set from storage doom.schedule:ctx t.prefix
execute unless function doom.schedule:core/check/k_id run return run function doom.schedule:core/err {code:"bad_prefix",message:"prefix must be 1 to 54 characters from A-Z a-z 0-9 _ . + -"}
execute if score #k.len doom.schedule matches 55.. run return run function doom.schedule:core/err {code:"bad_prefix",message:"prefix must be 1 to 54 characters from A-Z a-z 0-9 _ . + -"}
execute store result score #dyn doom.schedule run data get storage doom.schedule:data dyn
execute store result storage doom.schedule:ctx k.n int 1 run scoreboard players add #dyn doom.schedule 1
execute store result storage doom.schedule:data dyn int 1 run scoreboard players get #dyn doom.schedule
function doom.schedule:core/dyn_id with storage doom.schedule:ctx k
execute unless function doom.schedule:core/enqueue_timed run return fail
return run scoreboard players get #dyn doom.schedule
