# Macro {op}: starts a new outcome record in storage doom.schedule:out; every field is present:
# {ok:0b,code:"",message:"",op:<op>,id:"",due:-1,n:-1,count:0,time:-1,list:"",page:[],total:-1,
# next:-1}; req is removed (echoed later).
data remove storage doom.schedule:out req
$data merge storage doom.schedule:out {ok:0b,code:"",message:"",op:"$(op)",id:"",due:-1,n:-1,count:0,time:-1,list:"",page:[],total:-1,next:-1}
