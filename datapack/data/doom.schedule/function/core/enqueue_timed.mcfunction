# ctx t has a checked run and id: checks retry, retry_delay, then tick (core/enqueue_tick), or
# unit/time/interval, and computes the due tick into #q.d. ctx t has unit and time (or interval):
# the macro forms give them, doom.schedule:submit fills in the defaults. Returns 1 or fails.
# A request with key or cond (storage input only, marked t.x by submit) gives the task k = key
# and cond (core/check/extras).
# Changes: out, ctx t, see core/enqueue_new.
data modify storage doom.schedule:out id set from storage doom.schedule:ctx t.id
data modify storage doom.schedule:ctx t.new set value {player:0b,retry:0,retry_left:0,retry_delay:1,interval:0,late:0}
data modify storage doom.schedule:ctx t.new.id set from storage doom.schedule:ctx t.id
data modify storage doom.schedule:ctx t.new.run set from storage doom.schedule:ctx t.run
execute if data storage doom.schedule:ctx t.x unless function doom.schedule:core/check/extras run return fail
execute if data storage doom.schedule:ctx t.retry unless function doom.schedule:core/check/retry run return run function doom.schedule:core/err {code:"bad_retry",message:"retry must be an Int of at least 0"}
execute if data storage doom.schedule:ctx t.retry_delay unless function doom.schedule:core/check/retry_delay run return run function doom.schedule:core/err {code:"bad_retry",message:"retry_delay must be an Int"}
execute if data storage doom.schedule:ctx t.tick run return run function doom.schedule:core/enqueue_tick
scoreboard players set #mult doom.schedule 0
execute store result score #mult doom.schedule run function doom.schedule:core/check/unit with storage doom.schedule:ctx t
execute unless score #mult doom.schedule matches 1.. run return run function doom.schedule:core/err {code:"bad_unit",message:"unknown unit: use t, s, m, h, d (a real day) or gd (a game day)"}
scoreboard players set #lim doom.schedule 2147483647
scoreboard players operation #lim doom.schedule -= #g doom.schedule
scoreboard players operation #lim doom.schedule /= #mult doom.schedule
execute if data storage doom.schedule:ctx t.interval unless function doom.schedule:core/check/interval run return run function doom.schedule:core/err {code:"bad_interval",message:"interval must be an Int of at least 1 whose ticks fit in an Int"}
execute unless function doom.schedule:core/check/time run return run function doom.schedule:core/err {code:"bad_time",message:"time must be an Int of at least 0"}
execute unless score #q.d doom.schedule matches 0.. run return run function doom.schedule:core/err {code:"bad_time",message:"time must be an Int of at least 0"}
execute if score #q.d doom.schedule > #lim doom.schedule run return run function doom.schedule:core/err {code:"too_late",message:"the due tick would be past game time 2147483647"}
scoreboard players operation #q.d doom.schedule *= #mult doom.schedule
scoreboard players operation #q.d doom.schedule += #g doom.schedule
return run function doom.schedule:core/enqueue_new
