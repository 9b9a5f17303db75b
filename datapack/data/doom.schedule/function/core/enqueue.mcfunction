# Validates the request ctx t (from a macro form or doom.schedule:in task; a request with prefix
# goes to core/enqueue_prefixed instead) and queues it in the caller's context. Returns 1, or
# fails with the reason in out. The outcome record is started here as core/out does (inlined:
# enqueue is the hot path). Changes: out, queue, serial, ctx t/s.
data remove storage doom.schedule:out req
data merge storage doom.schedule:out {ok:0b,code:"",message:"",op:"schedule",id:"",due:-1,n:-1,count:0,time:-1,list:"",page:[],total:-1,next:-1}
execute if data storage doom.schedule:ctx t.req run data modify storage doom.schedule:out req set from storage doom.schedule:ctx t.req
execute store result storage doom.schedule:out time int 1 store result score #g doom.schedule run time query gametime
execute unless function doom.schedule:core/check/run run return run function doom.schedule:core/err {code:"bad_run",message:"run must be a command string of 1 to 32000 characters"}
execute unless function doom.schedule:core/check/t_id run return run function doom.schedule:core/err {code:"bad_id",message:"id must be 1 to 64 characters from A-Z a-z 0-9 _ . + -"}
return run function doom.schedule:core/enqueue_timed
