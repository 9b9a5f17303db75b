# The command failed to parse / instantiate: removed, never retried. Event invalid.
data modify storage doom.schedule:ctx e set value {type:"invalid"}
function doom.schedule:core/run/event
