# doom.schedule:schedule {run,time,unit,id}: runs `run` after time*unit ticks, in the caller's
# context. `run` is spliced into '...' (use doom.schedule:submit for arbitrary text).
# Returns 1, or fails (reason in doom.schedule:out). Changes: queue, out.
$data modify storage doom.schedule:ctx t set value {run:'$(run)',time:$(time),unit:"$(unit)",id:"$(id)"}
return run function doom.schedule:core/enqueue
