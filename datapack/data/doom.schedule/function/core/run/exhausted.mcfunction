# Failed with no attempts left: the task is removed (already out of the queue). Event retry_exhausted.
data modify storage doom.schedule:ctx e set value {type:"retry_exhausted",retry:0}
function doom.schedule:core/run/event
