# Macro {x,by}: appends " by=<uuid>" to ctx e.x. Changes: ctx e.x.
$data modify storage doom.schedule:ctx e.x set value "$(x) by=$(by)"
