# doom.schedule:count {id}: see the README (ids are checked before any other use).
# Returns as core/op/count does, or fails (reason in doom.schedule:out). Changes: lists, out.
function doom.schedule:core/out {op:"count"}
data remove storage doom.schedule:ctx c
$data modify storage doom.schedule:ctx c set value {id:"$(id)"}
return run function doom.schedule:core/op/count
