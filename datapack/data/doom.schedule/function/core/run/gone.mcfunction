# The executor of ctx x.cur is not loaded: a player's task is parked in offline (event offline),
# another entity's task is removed (event dropped). Changes: offline, events.
execute if data storage doom.schedule:ctx x.cur{player:1b} run return run function doom.schedule:core/run/park
data modify storage doom.schedule:ctx e set value {type:"dropped"}
function doom.schedule:core/run/event
