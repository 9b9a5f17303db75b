# No probe marker could be summoned (unloaded chunk): the task runs at the world origin, unturned.
# Forgets ctx p.pos/rot (core/ctx/probe's cache key), as p no longer matches them.
# Changes: ctx t.new.pos/rot, ctx p.
data modify storage doom.schedule:ctx t.new merge value {pos:[0.0d,0.0d,0.0d],rot:[0.0f,0.0f]}
data modify storage doom.schedule:ctx p merge value {ix:-1,iy:-1,iz:-1,fx:1.0d,fy:1.0d,fz:1.0d,yaw:0.0f,pitch:0.0f}
data remove storage doom.schedule:ctx p.pos
data remove storage doom.schedule:ctx p.rot
