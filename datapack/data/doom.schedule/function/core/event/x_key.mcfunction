# Macro {x,k}: appends " k=<key>" to ctx e.x (k was checked as an id: no selector, no space).
# Changes: ctx e.x.
$data modify storage doom.schedule:ctx e.x set value "$(x) k=$(k)"
