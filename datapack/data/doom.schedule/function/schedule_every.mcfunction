# doom.schedule:schedule_every {run,interval,unit,id}: runs `run` every interval*unit ticks, the
# first time one interval from now, until cancelled. Returns 1, or fails. Changes: queue, out.
$data modify storage doom.schedule:ctx t set value {run:'$(run)',interval:$(interval),unit:"$(unit)",id:"$(id)"}
return run function doom.schedule:core/enqueue
