# As the probe marker turned as the caller: yaw/pitch to 0.001 degree for core/ctx/at (see
# core/ctx/probe). Changes: ctx p.yaw/pitch.
execute store result storage doom.schedule:ctx p.yaw float 0.001 run data get entity @s Rotation[0] 1000
execute store result storage doom.schedule:ctx p.pitch float 0.001 run data get entity @s Rotation[1] 1000
