# Macro {id,n}: ctx t.id = "<id><n>" (a checked prefix and a number). Changes: ctx t.id.
$data modify storage doom.schedule:ctx t.id set value "$(id)$(n)"
