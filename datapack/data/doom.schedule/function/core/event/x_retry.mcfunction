# Macro {x,retry}: appends " retry=<left>" to ctx e.x. Changes: ctx e.x.
$data modify storage doom.schedule:ctx e.x set value "$(x) retry=$(retry)"
