# The cap left due tasks for the next tick (they keep their place): counts it in stats.deferred and
# records in stats.late how late the oldest waiting task is. Changes: stats.
execute store result score #def doom.schedule run data get storage doom.schedule:data stats.deferred
execute store result storage doom.schedule:data stats.deferred int 1 run scoreboard players add #def doom.schedule 1
scoreboard players operation #def doom.schedule = #now doom.schedule
execute store result storage doom.schedule:data stats.late int 1 run scoreboard players operation #def doom.schedule -= #head doom.schedule
