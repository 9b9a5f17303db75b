# Says event ctx e as one line: [doom.schedule] event=<type> id=<id> seq=<n> t=<t>[ by=<uuid>][ retry=<n>][ late=<ticks>][ why=<reason> players=<n>[ then=<run|skip>]][ k=<key>].
# Changes: ctx e.x (the optional key=value tail).
data modify storage doom.schedule:ctx e.x set value ""
execute if data storage doom.schedule:ctx e.by run function doom.schedule:core/event/x_by with storage doom.schedule:ctx e
execute if data storage doom.schedule:ctx e.retry run function doom.schedule:core/event/x_retry with storage doom.schedule:ctx e
execute if data storage doom.schedule:ctx e.late run function doom.schedule:core/event/x_late with storage doom.schedule:ctx e
execute if data storage doom.schedule:ctx e.why run function doom.schedule:core/event/x_cond with storage doom.schedule:ctx e
execute if data storage doom.schedule:ctx e.k run function doom.schedule:core/event/x_key with storage doom.schedule:ctx e
function doom.schedule:core/event/line with storage doom.schedule:ctx e
