# doom.schedule:schedule_at {run,tick,id}: runs `run` when game time reaches `tick` (a past tick
# runs at the next tick). Returns 1, or fails. Changes: queue, out.
$data modify storage doom.schedule:ctx t set value {run:'$(run)',tick:$(tick),id:"$(id)"}
return run function doom.schedule:core/enqueue
