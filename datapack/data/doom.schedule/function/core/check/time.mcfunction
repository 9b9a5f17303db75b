# Is ctx t.time an Int (as core/check/int, in place: no copy into ctx v)? Returns 1 with the value in
# #q.d (enqueue_timed turns it into the due tick there), or fails. Changes: ctx w, #chk, #q.d.
execute store result storage doom.schedule:ctx w int 1 store result score #q.d doom.schedule run data get storage doom.schedule:ctx t.time
execute store success score #chk doom.schedule run data modify storage doom.schedule:ctx w set from storage doom.schedule:ctx t.time
execute if score #chk doom.schedule matches 1 run return fail
return 1
