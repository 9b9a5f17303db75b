# #minecraft:tick: runs the due tasks. Idle cost: this entry, the time read and one comparison.
# #now = game time + 1, the time this tick advances to: tasks due at G+1 run in the tick that takes
# game time to G+1, as vanilla /schedule does. #head = due tick of queue[0].
execute store result score #now doom.schedule run time query gametime
scoreboard players add #now doom.schedule 1
execute if score #now doom.schedule >= #head doom.schedule run function doom.schedule:core/due
