# As the probe marker, in the caller's context: records Pos and Rotation in ctx t.new, and in ctx p
# the macro arguments of core/ctx/at, which must never be substituted as E-notation (a Double
# prints as 1.2345678E7 from 10^7 up and as 1.0E-4 below 10^-3, and commands cannot parse that):
# ix/iy/iz = floor(coordinate) - 1 (Ints) and fx/fy/fz = coordinate - that, a Double in [1, 2)
# computed exactly by teleporting the marker by the Int offset; yaw/pitch to 0.001 degree.
# ctx p.pos/rot keep the position and rotation these were computed for: a caller at the same place again (a
# command block, the console at the spawn) reuses them (core/ctx/same_pos) and skips the teleports.
# Changes: ctx t.new.pos/rot, ctx p; kills @s. Ends the capture: ctx p.dimension and t.new.at (core/ctx/at), returns 1.
execute store success score #chk doom.schedule run data modify storage doom.schedule:ctx p.pos set from entity @s Pos
execute if score #chk doom.schedule matches 0 run return run function doom.schedule:core/ctx/same_pos
data modify storage doom.schedule:ctx t.new.pos set from storage doom.schedule:ctx p.pos
tp @s ~-1 ~-1 ~-1
execute store result storage doom.schedule:ctx p.ix int 1 store result storage doom.schedule:ctx p.nx int -1 run data get entity @s Pos[0]
execute store result storage doom.schedule:ctx p.iy int 1 store result storage doom.schedule:ctx p.ny int -1 run data get entity @s Pos[1]
execute store result storage doom.schedule:ctx p.iz int 1 store result storage doom.schedule:ctx p.nz int -1 run data get entity @s Pos[2]
function doom.schedule:core/ctx/shift with storage doom.schedule:ctx p
data modify storage doom.schedule:ctx p.rot set from entity @s Rotation
data modify storage doom.schedule:ctx t.new.rot set from storage doom.schedule:ctx p.rot
data modify storage doom.schedule:ctx p.fx set from entity @s Pos[0]
data modify storage doom.schedule:ctx p.fy set from entity @s Pos[1]
data modify storage doom.schedule:ctx p.fz set from entity @s Pos[2]
execute store result storage doom.schedule:ctx p.yaw float 0.001 run data get entity @s Rotation[0] 1000
execute store result storage doom.schedule:ctx p.pitch float 0.001 run data get entity @s Rotation[1] 1000
kill @s
data modify storage doom.schedule:ctx p.dimension set from storage doom.schedule:ctx t.new.dimension
function doom.schedule:core/ctx/at with storage doom.schedule:ctx p
return 1
