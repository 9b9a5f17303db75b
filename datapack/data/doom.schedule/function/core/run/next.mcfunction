# Takes queue[0] out of the queue into ctx x.cur and runs it, then triages the outcome. A task
# with a key says it runs (core/run/ran) just before its command, once its executor is known to be
# there (core/run/as), so a crash between the two lines can never make it run twice.
# #x.st: -2 until the task's function instantiates, then -1, then its success (0/1) if stored.
# #head is refreshed with one read (core/q/head only when the queue ran empty); #head1 is left
# to core/due, once per tick. A task with conditions (cond) runs only when core/cond/met says
# so, before its executor is looked for or its ran event said. Input: #now. Changes: queue,
# #head, ctx x, #x.* scores; may re-queue or raise events.
data modify storage doom.schedule:ctx x.cur set from storage doom.schedule:data queue[0]
data remove storage doom.schedule:data queue[0]
execute store result score #head doom.schedule run data get storage doom.schedule:data queue[0].due
execute unless data storage doom.schedule:data queue[0] run function doom.schedule:core/q/head
execute if data storage doom.schedule:ctx x.cur.cond unless function doom.schedule:core/cond/met run return 0
scoreboard players set #x.st doom.schedule -2
execute if data storage doom.schedule:ctx x.cur.executor run return run function doom.schedule:core/run/as with storage doom.schedule:ctx x.cur
execute if data storage doom.schedule:ctx x.cur.k run function doom.schedule:core/run/ran
function doom.schedule:core/run/at with storage doom.schedule:ctx x.cur
function doom.schedule:core/run/triage
