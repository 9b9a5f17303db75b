# The command failed: retry after retry_delay if attempts are left (event retry), else remove
# (event retry_exhausted). Changes: queue, events.
execute if data storage doom.schedule:ctx x.cur{retry_left:0} run return run function doom.schedule:core/run/exhausted
function doom.schedule:core/run/late
execute store result score #x.r doom.schedule run data get storage doom.schedule:ctx x.cur.retry_left
execute store result score #q.d doom.schedule run data get storage doom.schedule:ctx x.cur.retry_delay
scoreboard players operation #q.d doom.schedule += #now doom.schedule
data modify storage doom.schedule:ctx t.new set from storage doom.schedule:ctx x.cur
execute store result storage doom.schedule:ctx t.new.due int 1 run scoreboard players get #q.d doom.schedule
execute store result storage doom.schedule:ctx t.new.retry_left int 1 run scoreboard players remove #x.r doom.schedule 1
function doom.schedule:core/q/insert
data modify storage doom.schedule:ctx e set value {type:"retry"}
data modify storage doom.schedule:ctx e.retry set from storage doom.schedule:ctx t.new.retry_left
function doom.schedule:core/run/event
