# doom.schedule:call: runs the operation in storage doom.schedule:in op {req,op,id} (op: cancel_one,
# cancel_all, count, clear, pause, resume, get_time; page with list, from, count instead of id)
# and consumes it; outcome in doom.schedule:out.
# Returns what the operation returns, or fails. Changes: in, lists, out.
function doom.schedule:core/out {op:""}
execute unless data storage doom.schedule:in op run return run function doom.schedule:core/err {code:"no_input",message:"nothing in storage doom.schedule:in op"}
data remove storage doom.schedule:ctx c
data modify storage doom.schedule:ctx c set from storage doom.schedule:in op
data remove storage doom.schedule:in op
data modify storage doom.schedule:out req set from storage doom.schedule:ctx c.req
data modify storage doom.schedule:out op set from storage doom.schedule:ctx c.op
execute if data storage doom.schedule:ctx c{op:"cancel_one"} run return run function doom.schedule:core/op/cancel_one
execute if data storage doom.schedule:ctx c{op:"cancel_all"} run return run function doom.schedule:core/op/cancel_all
execute if data storage doom.schedule:ctx c{op:"count"} run return run function doom.schedule:core/op/count
execute if data storage doom.schedule:ctx c{op:"clear"} run return run function doom.schedule:core/op/clear
execute if data storage doom.schedule:ctx c{op:"pause"} run return run function doom.schedule:core/op/pause
execute if data storage doom.schedule:ctx c{op:"resume"} run return run function doom.schedule:core/op/resume
execute if data storage doom.schedule:ctx c{op:"get_time"} run return run function doom.schedule:core/op/get_time
execute if data storage doom.schedule:ctx c{op:"page"} run return run function doom.schedule:core/op/page
return run function doom.schedule:core/err {code:"bad_op",message:"op must be cancel_one, cancel_all, count, clear, pause, resume, get_time or page"}
