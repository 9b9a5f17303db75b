# Macro {id}: removes every task with this id from queue, offline and paused. Returns the count.
# Changes: lists, #head.
scoreboard players set #c.sum doom.schedule 0
$execute store result score #c.k doom.schedule run data remove storage doom.schedule:data queue[{id:"$(id)"}]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
$execute store result score #c.k doom.schedule run data remove storage doom.schedule:data offline[{id:"$(id)"}]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
$execute store result score #c.k doom.schedule run data remove storage doom.schedule:data paused[{id:"$(id)"}]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
function doom.schedule:core/q/head
return run scoreboard players get #c.sum doom.schedule
