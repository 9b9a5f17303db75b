# doom.schedule:submit_staged {key}: as submit, for a request staged ahead in storage
# doom.schedule:in staged.<key> (the fields of `in task`; key: letters, digits, _). A caller that
# knows a request before its time writes it early, then queues it with this one command at its
# time. Consumes the staged request. Returns what submit returns, or fails (no_input, with out.req
# "staged.<key>", when nothing is staged under key). Changes: in, queue, out.
data remove storage doom.schedule:in task
$execute unless data storage doom.schedule:in staged.$(key) run return run function doom.schedule:core/no_staged {key:"$(key)"}
$data modify storage doom.schedule:in task set from storage doom.schedule:in staged.$(key)
$data remove storage doom.schedule:in staged.$(key)
return run function doom.schedule:submit
