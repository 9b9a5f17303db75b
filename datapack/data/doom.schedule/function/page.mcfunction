# doom.schedule:page {list,from,count}: copies tasks from .. from+count-1 of data <list> (queue,
# offline or paused) into doom.schedule:out page, with the list's length in out total and the
# index after the last copied task in out next. Stops early once the copied `run` texts reach
# 8000 characters (always at least one task), so one reply stays small: ask again from `next`.
# Returns 1, or fails (reason in doom.schedule:out). Changes: out.
function doom.schedule:core/out {op:"page"}
data remove storage doom.schedule:ctx c
$data modify storage doom.schedule:ctx c set value {list:"$(list)",from:$(from),count:$(count)}
return run function doom.schedule:core/op/page
