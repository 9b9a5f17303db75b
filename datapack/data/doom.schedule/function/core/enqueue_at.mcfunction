# ctx t.tick: an absolute game time (an Int >= 0; a past tick runs at the next tick). Sets #q.d and
# queues. Returns 1 or fails.
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx t.tick
execute unless function doom.schedule:core/check/int run return run function doom.schedule:core/err {code:"bad_tick",message:"tick must be an Int of at least 0"}
execute unless score #v doom.schedule matches 0.. run return run function doom.schedule:core/err {code:"bad_tick",message:"tick must be an Int of at least 0"}
scoreboard players operation #q.d doom.schedule = #v doom.schedule
return run function doom.schedule:core/enqueue_new
