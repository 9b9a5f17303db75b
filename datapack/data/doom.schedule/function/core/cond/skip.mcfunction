# The conditions of ctx x.cur are not met and it does not wait: event skipped with the reason
# (why, players), then this run is over (core/cond/done). Returns 0. Changes: ctx e; see core/cond/done.
data modify storage doom.schedule:ctx e set value {type:"skipped"}
data modify storage doom.schedule:ctx e.why set from storage doom.schedule:ctx cw.why
data modify storage doom.schedule:ctx e.players set from storage doom.schedule:ctx cw.players
function doom.schedule:core/run/event
return run function doom.schedule:core/cond/done
