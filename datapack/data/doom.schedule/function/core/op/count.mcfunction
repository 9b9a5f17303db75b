# Counts the tasks with id ctx c.id in every list; changes nothing but out. Returns the count.
execute unless function doom.schedule:core/check/c_id run return run function doom.schedule:core/err {code:"bad_id",message:"id must be 1 to 64 characters from A-Z a-z 0-9 _ . + -"}
data modify storage doom.schedule:out id set from storage doom.schedule:ctx c.id
execute store result score #c.sum doom.schedule run function doom.schedule:core/op/count_all with storage doom.schedule:ctx c
execute store result storage doom.schedule:out count int 1 run scoreboard players get #c.sum doom.schedule
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"counted"}
return run scoreboard players get #c.sum doom.schedule
