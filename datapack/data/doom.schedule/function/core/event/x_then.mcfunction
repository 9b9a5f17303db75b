# Macro {x,then}: appends " then=<run|skip>" to ctx e.x. Changes: ctx e.x.
$data modify storage doom.schedule:ctx e.x set value "$(x) then=$(then)"
