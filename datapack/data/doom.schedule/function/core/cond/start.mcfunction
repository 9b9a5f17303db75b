# Starts the wait of ctx x.cur: cond.until = #now + cond.wait (2147483647 when that would not fit
# in an Int). Changes: ctx x.cur.cond.until, #c.u, #c.w.
execute store result score #c.w doom.schedule run data get storage doom.schedule:ctx x.cur.cond.wait
scoreboard players operation #c.u doom.schedule = #now doom.schedule
scoreboard players operation #c.u doom.schedule += #c.w doom.schedule
execute if score #c.u doom.schedule < #now doom.schedule run scoreboard players set #c.u doom.schedule 2147483647
execute store result storage doom.schedule:ctx x.cur.cond.until int 1 run scoreboard players get #c.u doom.schedule
