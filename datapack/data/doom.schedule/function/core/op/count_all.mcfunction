# Macro {id}: returns the number of tasks with this id in queue, offline and paused.
scoreboard players set #c.sum doom.schedule 0
$execute store result score #c.k doom.schedule if data storage doom.schedule:data queue[{id:"$(id)"}]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
$execute store result score #c.k doom.schedule if data storage doom.schedule:data offline[{id:"$(id)"}]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
$execute store result score #c.k doom.schedule if data storage doom.schedule:data paused[{id:"$(id)"}]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
return run scoreboard players get #c.sum doom.schedule
