# The cap left due tasks for the next tick: counts it in stats.deferred. They keep their place and
# their lateness is recorded when they run. Changes: stats.deferred.
execute store result score #def doom.schedule run data get storage doom.schedule:data stats.deferred
execute store result storage doom.schedule:data stats.deferred int 1 run scoreboard players add #def doom.schedule 1
