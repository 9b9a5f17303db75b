# Rest of core/ctx/entity for a player caller (one selector test instead of one per field):
# player 1b, its Dimension, a doom.schedule.left score (kept if set), its UUID string.
# Changes: ctx t.new, ctx u, @s doom.schedule.left.
data modify storage doom.schedule:ctx t.new.player set value 1b
data modify storage doom.schedule:ctx t.new.dimension set from entity @s Dimension
scoreboard players add @s doom.schedule.left 0
function doom.schedule:core/uuid/self
data modify storage doom.schedule:ctx t.new.executor set from storage doom.schedule:ctx u.s
