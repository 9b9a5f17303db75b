# doom.schedule:clear: removes every task. Returns the count removed. Changes: lists, out.
function doom.schedule:core/out {op:"clear"}
return run function doom.schedule:core/op/clear
