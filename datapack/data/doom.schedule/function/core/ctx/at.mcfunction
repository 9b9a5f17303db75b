# Macro {dimension,x,y,z,yaw,pitch}: ctx t.new.at = the execute prefix that restores this context.
$data modify storage doom.schedule:ctx t.new.at set value "in $(dimension) positioned $(x) $(y) $(z) rotated $(yaw) $(pitch)"
