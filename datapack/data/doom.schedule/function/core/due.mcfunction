# Runs due tasks in queue order, at most cfg.cap of them this tick, each in its own function call.
# Nothing runs while #load's hold lasts (core/held).
# Input: #now (game time; made the time this tick advances to), #hold. Changes: queue, stats; may raise events.
execute if score #hold doom.schedule matches 1.. if function doom.schedule:core/held run return 0
scoreboard players add #now doom.schedule 1
execute store result score #cap doom.schedule run data get storage doom.schedule:data cfg.cap
scoreboard players set #ran doom.schedule 0
function doom.schedule:core/due_loop
scoreboard players operation #head1 doom.schedule = #head doom.schedule
scoreboard players remove #head1 doom.schedule 1
execute if score #now doom.schedule >= #head doom.schedule run function doom.schedule:core/deferred
