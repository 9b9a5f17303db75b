# #minecraft:tick: runs the due tasks, then restores the parked tasks of players who joined.
# Idle cost, whatever the queue and parked lists hold: this entry, the time read (a store stage
# and the query), one comparison with the head of the queue and one selector test (5 commands).
# #now = game time here; core/due makes it game time + 1, the time this tick advances to (tasks
# due at G+1 run in the tick that takes game time to G+1, as vanilla /schedule does).
# #head1 = due tick of queue[0] minus 1. A player has doom.schedule.left >= 1 after a disconnect
# (leave_game) and after every #load (core/load), and 0 once restored (core/restore/mark).
execute store result score #now doom.schedule run time query gametime
execute if score #now doom.schedule >= #head1 doom.schedule run function doom.schedule:core/due
execute if entity @a[scores={doom.schedule.left=1..}] run function doom.schedule:core/restore/check
