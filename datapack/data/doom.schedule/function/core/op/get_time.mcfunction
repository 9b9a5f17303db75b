# Returns the game time and records it in out. Changes: out.
execute store result storage doom.schedule:out time int 1 run time query gametime
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"game time"}
return run time query gametime
