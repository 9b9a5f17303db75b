# Context of an entity caller: a player's Dimension (core/ctx/player), else `execute if
# dimension`; its Pos, Rotation and UUID string. A player also gets a doom.schedule.left score
# (kept if set) so that #load can reach it while it is offline (see core/load).
# Changes: ctx t.new, ctx u, @s doom.schedule.left.
data modify storage doom.schedule:ctx t.new.pos set from entity @s Pos
data modify storage doom.schedule:ctx t.new.rot set from entity @s Rotation
execute if entity @s[type=minecraft:player] run return run function doom.schedule:core/ctx/player
execute unless data storage doom.schedule:ctx t.new.dimension run function doom.schedule:core/ctx/dimension
function doom.schedule:core/uuid/self
data modify storage doom.schedule:ctx t.new.executor set from storage doom.schedule:ctx u.s
