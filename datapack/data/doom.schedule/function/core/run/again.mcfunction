# Re-queues interval task ctx x.cur at the first anchor + k*interval strictly after this tick, so a
# task that ran late runs once and skips ahead without drift. Attempts are reset. Changes: queue.
function doom.schedule:core/run/late
execute store result score #x.a doom.schedule run data get storage doom.schedule:ctx x.cur.anchor
execute store result score #x.i doom.schedule run data get storage doom.schedule:ctx x.cur.interval
scoreboard players operation #q.d doom.schedule = #now doom.schedule
scoreboard players operation #q.d doom.schedule -= #x.a doom.schedule
scoreboard players operation #q.d doom.schedule /= #x.i doom.schedule
scoreboard players add #q.d doom.schedule 1
scoreboard players operation #q.d doom.schedule *= #x.i doom.schedule
scoreboard players operation #q.d doom.schedule += #x.a doom.schedule
execute if score #q.d doom.schedule <= #now doom.schedule run return 0
data modify storage doom.schedule:ctx t.new set from storage doom.schedule:ctx x.cur
execute store result storage doom.schedule:ctx t.new.due int 1 run scoreboard players get #q.d doom.schedule
execute store result storage doom.schedule:ctx t.new.anchor int 1 run scoreboard players get #q.d doom.schedule
data modify storage doom.schedule:ctx t.new.retry_left set from storage doom.schedule:ctx t.new.retry
function doom.schedule:core/q/insert
