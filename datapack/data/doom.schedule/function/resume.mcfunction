# doom.schedule:resume {id}: see the README (ids are checked before any other use).
# Returns as core/op/resume does, or fails (reason in doom.schedule:out). Changes: lists, out.
function doom.schedule:core/out {op:"resume"}
data remove storage doom.schedule:ctx c
$data modify storage doom.schedule:ctx c set value {id:"$(id)"}
return run function doom.schedule:core/op/resume
