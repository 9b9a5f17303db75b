# Context without an entity (console, RCON, command block): dimension, and position and rotation
# read from a marker summoned and turned to the context, then killed. Builds ctx t.new.at.
# If the marker cannot be summoned (unloaded chunk) the world origin is used.
# Changes: ctx t.new, ctx p; summons and kills one marker tagged doom.schedule.probe.
function doom.schedule:core/ctx/dimension
summon minecraft:marker ~ ~ ~ {Tags:["doom.schedule.probe"]}
tp @e[type=minecraft:marker,tag=doom.schedule.probe] ~ ~ ~ ~ ~
data modify storage doom.schedule:ctx t.new.pos set from entity @e[type=minecraft:marker,tag=doom.schedule.probe,limit=1] Pos
data modify storage doom.schedule:ctx t.new.rot set from entity @e[type=minecraft:marker,tag=doom.schedule.probe,limit=1] Rotation
kill @e[type=minecraft:marker,tag=doom.schedule.probe]
execute unless data storage doom.schedule:ctx t.new.pos run data modify storage doom.schedule:ctx t.new.pos set value [0.0d,0.0d,0.0d]
execute unless data storage doom.schedule:ctx t.new.rot run data modify storage doom.schedule:ctx t.new.rot set value [0.0f,0.0f]
data modify storage doom.schedule:ctx p set value {}
data modify storage doom.schedule:ctx p.dimension set from storage doom.schedule:ctx t.new.dimension
data modify storage doom.schedule:ctx p.x set from storage doom.schedule:ctx t.new.pos[0]
data modify storage doom.schedule:ctx p.y set from storage doom.schedule:ctx t.new.pos[1]
data modify storage doom.schedule:ctx p.z set from storage doom.schedule:ctx t.new.pos[2]
data modify storage doom.schedule:ctx p.yaw set from storage doom.schedule:ctx t.new.rot[0]
data modify storage doom.schedule:ctx p.pitch set from storage doom.schedule:ctx t.new.rot[1]
function doom.schedule:core/ctx/at with storage doom.schedule:ctx p
