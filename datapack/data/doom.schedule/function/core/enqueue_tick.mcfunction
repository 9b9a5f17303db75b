# ctx t.tick given (from core/enqueue_timed, retry checked): alone, the due tick is tick; with
# interval, the first run is at tick and the grid of later runs is anchored there, after the
# unit and interval checks of core/enqueue_timed (time is ignored). A separate function so that
# a call without tick pays one test for it. Returns 1 or fails. Changes: see core/enqueue_at.
execute unless data storage doom.schedule:ctx t.interval run return run function doom.schedule:core/enqueue_at
scoreboard players set #mult doom.schedule 0
execute store result score #mult doom.schedule run function doom.schedule:core/check/unit with storage doom.schedule:ctx t
execute unless score #mult doom.schedule matches 1.. run return run function doom.schedule:core/err {code:"bad_unit",message:"unknown unit: use t, s, m, h, d (a real day) or gd (a game day)"}
scoreboard players set #lim doom.schedule 2147483647
scoreboard players operation #lim doom.schedule -= #g doom.schedule
scoreboard players operation #lim doom.schedule /= #mult doom.schedule
execute unless function doom.schedule:core/check/interval run return run function doom.schedule:core/err {code:"bad_interval",message:"interval must be an Int of at least 1 whose ticks fit in an Int"}
return run function doom.schedule:core/enqueue_at
