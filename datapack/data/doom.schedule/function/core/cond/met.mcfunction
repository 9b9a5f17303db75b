# Are the conditions (cond) of due task ctx x.cur met now? Counts the players online and tests
# cond.min, cond.max and cond.online. Met: the task runs now (a wait is over: cond.until goes).
# Not met: core/cond/unmet skips it, waits, or ends a wait that ran out. Called by core/run/next
# only for a task with cond, so tasks without conditions pay one test.
# Returns 1 when the task runs now, else 0. Changes: ctx cw, ctx x.cur.cond, #c.*; see core/cond/unmet.
data remove storage doom.schedule:ctx cw
execute store result score #c.n doom.schedule if entity @a
execute store result score #c.a doom.schedule run data get storage doom.schedule:ctx x.cur.cond.min
execute store result score #c.b doom.schedule run data get storage doom.schedule:ctx x.cur.cond.max
execute if score #c.n doom.schedule < #c.a doom.schedule run data modify storage doom.schedule:ctx cw.why set value "too_few"
execute if score #c.n doom.schedule > #c.b doom.schedule run data modify storage doom.schedule:ctx cw.why set value "too_many"
execute unless data storage doom.schedule:ctx cw.why if data storage doom.schedule:ctx x.cur.cond.online unless function doom.schedule:core/cond/online_test run data modify storage doom.schedule:ctx cw.why set value "not_online"
execute if data storage doom.schedule:ctx cw.why run return run function doom.schedule:core/cond/unmet
data remove storage doom.schedule:ctx x.cur.cond.until
return 1
