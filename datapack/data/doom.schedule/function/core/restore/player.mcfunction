# Macro {u}: moves the offline tasks of the player with UUID string u to ctx r.l, in parking order,
# and restores each. Changes: offline, ctx r.l.
data modify storage doom.schedule:ctx r.l set value []
$data modify storage doom.schedule:ctx r.l append from storage doom.schedule:data offline[{executor:"$(u)"}]
$data remove storage doom.schedule:data offline[{executor:"$(u)"}]
execute if data storage doom.schedule:ctx r.l[0] run function doom.schedule:core/restore/each
