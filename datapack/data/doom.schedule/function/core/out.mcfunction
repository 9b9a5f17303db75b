# Macro {op}: starts a new outcome record in storage doom.schedule:out: {ok:0b,code:"",message:"",
# op:<op>} with the optional fields (req, id, due, n, count, time) of the last call removed.
data remove storage doom.schedule:out req
data remove storage doom.schedule:out id
data remove storage doom.schedule:out due
data remove storage doom.schedule:out n
data remove storage doom.schedule:out count
data remove storage doom.schedule:out time
$data merge storage doom.schedule:out {ok:0b,code:"",message:"",op:"$(op)"}
