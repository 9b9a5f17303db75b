# Macro {x,why,players}: appends " why=<reason> players=<n>" (and " then=<run|skip>" for a wait
# that ran out) to ctx e.x. Changes: ctx e.x.
$data modify storage doom.schedule:ctx e.x set value "$(x) why=$(why) players=$(players)"
execute if data storage doom.schedule:ctx e.then run function doom.schedule:core/event/x_then with storage doom.schedule:ctx e
