# As the probe marker, at a caller whose position is ctx p.pos, for which ctx p already holds
# ix/iy/iz and fx/fy/fz (see core/ctx/probe): records the position and the caller's rotation
# (the marker takes it by a teleport in place; yaw/pitch to 0.001 degree).
# Changes: ctx t.new.pos/rot, ctx p.yaw/pitch; kills @s.
data modify storage doom.schedule:ctx t.new.pos set from storage doom.schedule:ctx p.pos
tp @s ~ ~ ~ ~ ~
data modify storage doom.schedule:ctx t.new.rot set from entity @s Rotation
execute store result storage doom.schedule:ctx p.yaw float 0.001 run data get entity @s Rotation[0] 1000
execute store result storage doom.schedule:ctx p.pitch float 0.001 run data get entity @s Rotation[1] 1000
kill @s
