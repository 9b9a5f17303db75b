# doom.schedule:api/schedule_dynamic {run,time,unit,prefix}: as schedule with the id <prefix><n>,
# n a counter; the id is written to doom.schedule:out id. Returns n, or fails. Changes: queue, dyn, out.
$data modify storage doom.schedule:ctx t set value {run:'$(run)',time:$(time),unit:"$(unit)",prefix:"$(prefix)"}
return run function doom.schedule:core/enqueue_prefixed
