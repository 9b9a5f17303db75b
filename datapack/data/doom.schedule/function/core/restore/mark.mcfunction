# As a joining player: marks it restored (doom.schedule.left 0) and adds its UUID string to ctx r.p.
# Changes: score doom.schedule.left of @s, ctx r.p.
scoreboard players set @s doom.schedule.left 0
function doom.schedule:core/uuid/self
data modify storage doom.schedule:ctx r.p append value {}
data modify storage doom.schedule:ctx r.p[-1].u set from storage doom.schedule:ctx u.s
