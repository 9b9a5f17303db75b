# Is ctx v an Int (a missing v counts as 0)? Returns 1 with #v = its value, or fails.
# A copy stored as an Int equals the original only for an Int (then #v, read by the same
# command, is exact). Changes: #v, #chk, ctx w.
execute store result storage doom.schedule:ctx w int 1 store result score #v doom.schedule run data get storage doom.schedule:ctx v
execute store success score #chk doom.schedule run data modify storage doom.schedule:ctx w set from storage doom.schedule:ctx v
execute if score #chk doom.schedule matches 1 run return fail
return 1
