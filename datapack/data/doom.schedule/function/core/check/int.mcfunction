# Is ctx v present and an Int? Returns 1 with #v = its value, or fails. Changes: #v, #chk, ctx w.
execute unless data storage doom.schedule:ctx v run return fail
execute store result score #v doom.schedule run data get storage doom.schedule:ctx v
data modify storage doom.schedule:ctx w set value 0
execute store result storage doom.schedule:ctx w int 1 run scoreboard players get #v doom.schedule
execute store success score #chk doom.schedule run data modify storage doom.schedule:ctx w set from storage doom.schedule:ctx v
execute if score #chk doom.schedule matches 1 run return fail
return 1
