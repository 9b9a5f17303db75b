# Takes queue[0] out of the queue into ctx x.cur and runs it, then triages the outcome.
# Input: #now. Changes: queue, #head, ctx x, #x.* scores, stats.runs; may re-queue or raise events.
data modify storage doom.schedule:ctx x set value {}
data modify storage doom.schedule:ctx x.cur set from storage doom.schedule:data queue[0]
data remove storage doom.schedule:data queue[0]
function doom.schedule:core/q/head
execute store result score #x.due doom.schedule run data get storage doom.schedule:ctx x.cur.due
scoreboard players operation #x.late doom.schedule = #now doom.schedule
scoreboard players operation #x.late doom.schedule -= #x.due doom.schedule
execute store result storage doom.schedule:ctx x.cur.late int 1 run scoreboard players add #x.late doom.schedule 1
scoreboard players set #x.inst doom.schedule 0
scoreboard players set #x.ok doom.schedule -1
execute if data storage doom.schedule:ctx x.cur.executor run return run function doom.schedule:core/run/as with storage doom.schedule:ctx x.cur
function doom.schedule:core/run/at with storage doom.schedule:ctx x.cur
function doom.schedule:core/run/triage
