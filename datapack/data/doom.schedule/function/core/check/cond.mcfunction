# The request's conditions ctx t.cond (storage input `cond`), checked at run time by core/cond/met:
# min/max players online (Ints >= 0, min <= max), online (a player name: 1 to 16 id characters),
# wait (ticks to wait for them, Int >= 0; 0 = skip at once), then ("run" or "skip" once the wait
# is over). Sets ctx t.new.cond with every default filled in: {min:0,max:2147483647,wait:0,
# then:"skip"}. Returns 1 or fails. Changes: ctx t.new.cond, ctx v, ctx w, ctx k,
# #v, #chk, #c.a, #c.b, #k.*.
execute unless data storage doom.schedule:ctx t.cond{} run return fail
data modify storage doom.schedule:ctx t.new.cond set value {min:0,max:2147483647,wait:0,then:"skip"}
data remove storage doom.schedule:ctx v
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.cond.min
execute if data storage doom.schedule:ctx v unless function doom.schedule:core/check/nat run return fail
execute if data storage doom.schedule:ctx v store result storage doom.schedule:ctx t.new.cond.min int 1 run scoreboard players get #v doom.schedule
data remove storage doom.schedule:ctx v
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.cond.max
execute if data storage doom.schedule:ctx v unless function doom.schedule:core/check/nat run return fail
execute if data storage doom.schedule:ctx v store result storage doom.schedule:ctx t.new.cond.max int 1 run scoreboard players get #v doom.schedule
data remove storage doom.schedule:ctx v
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.cond.wait
execute if data storage doom.schedule:ctx v unless function doom.schedule:core/check/nat run return fail
execute if data storage doom.schedule:ctx v store result storage doom.schedule:ctx t.new.cond.wait int 1 run scoreboard players get #v doom.schedule
execute store result score #c.a doom.schedule run data get storage doom.schedule:ctx t.new.cond.min
execute store result score #c.b doom.schedule run data get storage doom.schedule:ctx t.new.cond.max
execute if score #c.a doom.schedule > #c.b doom.schedule run return fail
execute if data storage doom.schedule:ctx t.cond.then unless data storage doom.schedule:ctx t.cond{then:"run"} unless data storage doom.schedule:ctx t.cond{then:"skip"} run return fail
execute if data storage doom.schedule:ctx t.cond.then run data modify storage doom.schedule:ctx t.new.cond.then set from storage doom.schedule:ctx t.cond.then
execute unless data storage doom.schedule:ctx t.cond.online run return 1
data modify storage doom.schedule:ctx k set value {}
data modify storage doom.schedule:ctx k.id set from storage doom.schedule:ctx t.cond.online
execute unless function doom.schedule:core/check/k_id run return fail
execute unless score #k.len doom.schedule matches 1..16 run return fail
data modify storage doom.schedule:ctx t.new.cond.online set from storage doom.schedule:ctx t.cond.online
return 1
