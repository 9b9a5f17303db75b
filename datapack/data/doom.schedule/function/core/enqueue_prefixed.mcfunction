# core/enqueue for a request with prefix (doom.schedule:submit, api/schedule_dynamic): the same
# outcome record, time and run check (keep these lines as core/enqueue's), then the dynamic id
# (core/enqueue_dynamic). A separate entry so that the macro forms, which never carry prefix,
# pay no test for it. Returns n, or fails. Changes: see core/enqueue and core/enqueue_dynamic.
data remove storage doom.schedule:out req
data merge storage doom.schedule:out {ok:0b,code:"",message:"",op:"schedule",id:"",due:-1,n:-1,count:0,time:-1,list:"",page:[],total:-1,next:-1}
execute if data storage doom.schedule:ctx t.req run data modify storage doom.schedule:out req set from storage doom.schedule:ctx t.req
execute store result storage doom.schedule:out time int 1 store result score #g doom.schedule run time query gametime
execute unless function doom.schedule:core/check/run run return run function doom.schedule:core/err {code:"bad_run",message:"run must be a command string of 1 to 32000 characters"}
return run function doom.schedule:core/enqueue_dynamic
