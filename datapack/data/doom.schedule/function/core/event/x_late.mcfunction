# Macro {x,late}: appends " late=<ticks>" to ctx e.x. Changes: ctx e.x.
$data modify storage doom.schedule:ctx e.x set value "$(x) late=$(late)"
