# Context of an entity caller: a player's Dimension, else `execute if dimension`; its Pos, Rotation
# and UUID string. Changes: ctx t.new, ctx u.
data modify storage doom.schedule:ctx t.new.pos set from entity @s Pos
data modify storage doom.schedule:ctx t.new.rot set from entity @s Rotation
execute if entity @s[type=minecraft:player] run data modify storage doom.schedule:ctx t.new.player set value 1b
execute if entity @s[type=minecraft:player] run data modify storage doom.schedule:ctx t.new.dimension set from entity @s Dimension
execute unless data storage doom.schedule:ctx t.new.dimension run function doom.schedule:core/ctx/dimension
function doom.schedule:core/uuid/self
data modify storage doom.schedule:ctx t.new.executor set from storage doom.schedule:ctx u.s
