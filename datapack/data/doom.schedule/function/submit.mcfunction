# doom.schedule:submit: queues the request in storage doom.schedule:in task (fields in the README;
# `run` is copied as data, never spliced) and consumes it. Returns 1 (dynamic: n), or fails; the
# outcome, echoing task.req, is in doom.schedule:out. Fills in the defaults the macro forms always
# give: unit "t", time 0 (interval tasks: core/check/interval); marks a request with key or
# cond (t.x) so that only such requests pay for their checks. Changes: in, queue, out.
execute unless data storage doom.schedule:in task run return run function doom.schedule:core/no_task
data modify storage doom.schedule:ctx t set from storage doom.schedule:in task
data remove storage doom.schedule:in task
execute unless data storage doom.schedule:ctx t.unit run data modify storage doom.schedule:ctx t.unit set value "t"
execute unless data storage doom.schedule:ctx t.time unless data storage doom.schedule:ctx t.interval run data modify storage doom.schedule:ctx t.time set value 0
execute if data storage doom.schedule:ctx t.key run data modify storage doom.schedule:ctx t.x set value 1b
execute if data storage doom.schedule:ctx t.cond run data modify storage doom.schedule:ctx t.x set value 1b
execute if data storage doom.schedule:ctx t.prefix run return run function doom.schedule:core/enqueue_prefixed
return run function doom.schedule:core/enqueue
