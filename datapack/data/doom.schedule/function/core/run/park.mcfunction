# Parks ctx x.cur in data offline until its player joins. Event offline. Changes: offline, events.
function doom.schedule:core/run/late
data modify storage doom.schedule:data offline append from storage doom.schedule:ctx x.cur
data modify storage doom.schedule:ctx e set value {type:"offline"}
function doom.schedule:core/run/event
