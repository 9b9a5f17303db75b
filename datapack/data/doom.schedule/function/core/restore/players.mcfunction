# For each {u} in ctx r.p (tail call): that player's parked tasks go back to the queue.
data modify storage doom.schedule:ctx r.w set from storage doom.schedule:ctx r.p[0]
data remove storage doom.schedule:ctx r.p[0]
function doom.schedule:core/restore/player with storage doom.schedule:ctx r.w
execute if data storage doom.schedule:ctx r.p[0] run function doom.schedule:core/restore/players
