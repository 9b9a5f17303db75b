# #minecraft:tick: runs the due tasks. Idle cost: this entry, the time read and one comparison.
# #head holds (due tick of queue[0]) - 1, so "due <= game time + 1" is "#now >= #head": the tasks
# due at G+1 run in the tick that advances game time to G+1, as vanilla /schedule does.
execute store result score #now doom.schedule run time query gametime
execute if score #now doom.schedule >= #head doom.schedule run function doom.schedule:core/due
