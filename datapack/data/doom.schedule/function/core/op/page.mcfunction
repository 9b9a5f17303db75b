# Copies a page of data <ctx c.list> (from ctx c.from, at most ctx c.count tasks, at most 8000
# characters of `run` text unless the first task alone is longer) into out page; out total = the
# list's length, out next = the index after the page, out count = tasks copied, out time = the
# game time (so a reader can date the page's due ticks). O(page size),
# whatever the list's length. Returns 1 or fails. Changes: out, ctx c, #pg.*.
execute unless data storage doom.schedule:ctx c{list:"queue"} unless data storage doom.schedule:ctx c{list:"offline"} unless data storage doom.schedule:ctx c{list:"paused"} run return run function doom.schedule:core/err {code:"bad_list",message:"list must be queue, offline or paused"}
data modify storage doom.schedule:out list set from storage doom.schedule:ctx c.list
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx c.from
execute unless function doom.schedule:core/check/int run return run function doom.schedule:core/err {code:"bad_page",message:"from must be an Int of at least 0"}
execute unless score #v doom.schedule matches 0.. run return run function doom.schedule:core/err {code:"bad_page",message:"from must be an Int of at least 0"}
scoreboard players operation #pg.i doom.schedule = #v doom.schedule
data modify storage doom.schedule:ctx v set from storage doom.schedule:ctx c.count
execute unless function doom.schedule:core/check/int run return run function doom.schedule:core/err {code:"bad_page",message:"count must be an Int from 1 to 100"}
execute unless score #v doom.schedule matches 1..100 run return run function doom.schedule:core/err {code:"bad_page",message:"count must be an Int from 1 to 100"}
execute if data storage doom.schedule:ctx c{list:"queue"} store result score #pg.t doom.schedule if data storage doom.schedule:data queue[]
execute if data storage doom.schedule:ctx c{list:"offline"} store result score #pg.t doom.schedule if data storage doom.schedule:data offline[]
execute if data storage doom.schedule:ctx c{list:"paused"} store result score #pg.t doom.schedule if data storage doom.schedule:data paused[]
scoreboard players operation #pg.e doom.schedule = #pg.i doom.schedule
scoreboard players operation #pg.e doom.schedule += #v doom.schedule
scoreboard players operation #pg.e doom.schedule < #pg.t doom.schedule
scoreboard players set #pg.len doom.schedule 0
data modify storage doom.schedule:out page set value []
execute if score #pg.i doom.schedule < #pg.e doom.schedule run function doom.schedule:core/op/page_next
execute store result storage doom.schedule:out time int 1 run time query gametime
execute store result storage doom.schedule:out total int 1 run scoreboard players get #pg.t doom.schedule
execute store result storage doom.schedule:out next int 1 run scoreboard players get #pg.i doom.schedule
execute store result storage doom.schedule:out count int 1 run data get storage doom.schedule:out page
data merge storage doom.schedule:out {ok:1b,code:"ok",message:"page"}
return 1
