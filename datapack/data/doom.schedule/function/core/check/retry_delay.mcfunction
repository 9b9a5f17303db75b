# ctx t.retry_delay: an Int; 0 or less means 1. Sets ctx t.new.retry_delay. Returns 1 or fails.
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.retry_delay
execute unless function doom.schedule:core/check/int run return fail
execute if score #v doom.schedule matches ..0 run scoreboard players set #v doom.schedule 1
execute store result storage doom.schedule:ctx t.new.retry_delay int 1 run scoreboard players get #v doom.schedule
return 1
