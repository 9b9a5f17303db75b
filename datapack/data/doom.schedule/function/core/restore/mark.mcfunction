# As a joining player: marks it seen in this session and adds its UUID string to ctx r.p.
# Changes: tag doom.schedule.seen, scores doom.schedule.sess/left of @s, ctx r.p.
tag @s add doom.schedule.seen
scoreboard players operation @s doom.schedule.sess = #session doom.schedule
scoreboard players reset @s doom.schedule.left
function doom.schedule:core/uuid/self
data modify storage doom.schedule:ctx r.p append value {}
data modify storage doom.schedule:ctx r.p[-1].u set from storage doom.schedule:ctx u.s
