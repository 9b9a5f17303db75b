# Removes every task from every list. Returns the count removed. Changes: lists, #head, out.
execute store result score #c.sum doom.schedule if data storage doom.schedule:data queue[]
execute store result score #c.k doom.schedule if data storage doom.schedule:data offline[]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
execute store result score #c.k doom.schedule if data storage doom.schedule:data paused[]
scoreboard players operation #c.sum doom.schedule += #c.k doom.schedule
data modify storage doom.schedule:data queue set value []
data modify storage doom.schedule:data offline set value []
data modify storage doom.schedule:data paused set value []
function doom.schedule:core/q/head
execute store result storage doom.schedule:out count int 1 run scoreboard players get #c.sum doom.schedule
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"cleared"}
return run scoreboard players get #c.sum doom.schedule
