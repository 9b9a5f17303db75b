# ctx t.interval: an Int >= 1 whose length in ticks (times #mult) is at most #lim. Sets
# ctx t.new.interval (ticks) and, when no first delay is given, ctx t.time = the interval.
# Returns 1 or fails. Changes: ctx t, #v.
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.interval
execute unless function doom.schedule:core/check/int run return fail
execute unless score #v doom.schedule matches 1.. run return fail
execute if score #v doom.schedule > #lim doom.schedule run return fail
execute unless data storage doom.schedule:ctx t.time run data modify storage doom.schedule:ctx t.time set from storage doom.schedule:ctx t.interval
execute store result storage doom.schedule:ctx t.new.interval int 1 run scoreboard players operation #v doom.schedule *= #mult doom.schedule
return 1
