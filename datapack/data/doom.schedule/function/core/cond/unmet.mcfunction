# The conditions of ctx x.cur are not met (ctx cw.why: too_few, too_many or not_online; #c.n
# players online). cond.wait 0: skipped at once (event skipped). Otherwise it waits: the first
# check sets cond.until = now + wait, and the task is re-queued to be checked again every 20
# ticks (at the latest at until); at until, still unmet, the wait is over (core/cond/over).
# A waiting task is in the queue like any other (pause, cancel and page see it), and costs
# nothing between its checks. Returns 1 when the task runs now, else 0. Changes: queue, ctx cw,
# ctx x.cur.cond.until, ctx t.new, #q.d, #c.u; may raise events.
execute store result storage doom.schedule:ctx cw.players int 1 run scoreboard players get #c.n doom.schedule
execute if data storage doom.schedule:ctx x.cur.cond{wait:0} run return run function doom.schedule:core/cond/skip
execute unless data storage doom.schedule:ctx x.cur.cond.until run function doom.schedule:core/cond/start
execute store result score #c.u doom.schedule run data get storage doom.schedule:ctx x.cur.cond.until
execute if score #now doom.schedule >= #c.u doom.schedule run return run function doom.schedule:core/cond/over
scoreboard players operation #q.d doom.schedule = #now doom.schedule
scoreboard players add #q.d doom.schedule 20
scoreboard players operation #q.d doom.schedule < #c.u doom.schedule
data modify storage doom.schedule:ctx t.new set from storage doom.schedule:ctx x.cur
execute store result storage doom.schedule:ctx t.new.due int 1 run scoreboard players get #q.d doom.schedule
function doom.schedule:core/q/insert
return 0
