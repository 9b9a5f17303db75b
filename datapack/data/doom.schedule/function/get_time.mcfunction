# doom.schedule:get_time: returns the game time (also in doom.schedule:out time). Changes: out.
function doom.schedule:core/out {op:"get_time"}
return run function doom.schedule:core/op/get_time
