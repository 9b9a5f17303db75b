# ctx t.retry: an Int >= 0. Sets ctx t.new.retry and retry_left. Returns 1 or fails.
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.retry
execute unless function doom.schedule:core/check/int run return fail
execute unless score #v doom.schedule matches 0.. run return fail
execute store result storage doom.schedule:ctx t.new.retry int 1 run scoreboard players get #v doom.schedule
execute store result storage doom.schedule:ctx t.new.retry_left int 1 run scoreboard players get #v doom.schedule
return 1
