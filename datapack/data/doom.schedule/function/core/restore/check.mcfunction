# As the server, in #tick, when some online player has doom.schedule.left >= 1 (joined after a
# disconnect or a #load, or never restored): marks them restored and moves their parked tasks
# back to the queue. Changes: ctx r, scores doom.schedule.left of those players, see core/restore/*.
data remove storage doom.schedule:ctx r
execute as @a[scores={doom.schedule.left=1..}] run function doom.schedule:core/restore/mark
execute if data storage doom.schedule:ctx r.p[0] run function doom.schedule:core/restore/players
