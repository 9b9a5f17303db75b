# As the probe marker, at a caller whose position is ctx p.pos, for which ctx p already holds
# ix/iy/iz and fx/fy/fz (see core/ctx/probe): records the position and the caller's rotation
# (the marker takes it by a teleport in place); yaw/pitch are recomputed (core/ctx/turn) only
# when the rotation is not ctx p.rot. Changes: ctx t.new.pos/rot, ctx p.rot/yaw/pitch; kills @s. Ends the capture: ctx p.dimension and t.new.at (core/ctx/at), returns 1.
data modify storage doom.schedule:ctx t.new.pos set from storage doom.schedule:ctx p.pos
tp @s ~ ~ ~ ~ ~
execute store success score #chk doom.schedule run data modify storage doom.schedule:ctx p.rot set from entity @s Rotation
execute if score #chk doom.schedule matches 1 run function doom.schedule:core/ctx/turn
data modify storage doom.schedule:ctx t.new.rot set from storage doom.schedule:ctx p.rot
kill @s
data modify storage doom.schedule:ctx p.dimension set from storage doom.schedule:ctx t.new.dimension
function doom.schedule:core/ctx/at with storage doom.schedule:ctx p
return 1
