# doom.schedule:schedule_with_retry {run,time,unit,id,retry,retry_delay}: as schedule; a failing
# run is tried again up to `retry` more times, retry_delay ticks apart (<= 0 means 1).
# Returns 1, or fails (reason in doom.schedule:out). Changes: queue, out.
$data modify storage doom.schedule:ctx t set value {run:'$(run)',time:$(time),unit:"$(unit)",id:"$(id)",retry:$(retry),retry_delay:$(retry_delay)}
return run function doom.schedule:core/enqueue
