# ctx u.s = the UUID string of @s, from the cache data uuids (O(1) commands) or converted and cached
# (at most 256 entries). Returns 1. Changes: ctx u, data uuids.
data modify storage doom.schedule:ctx u set value {}
data modify storage doom.schedule:ctx u.a set from entity @s UUID
execute store success score #u.hit doom.schedule run function doom.schedule:core/uuid/cached with storage doom.schedule:ctx u
execute if score #u.hit doom.schedule matches 1 run return 1
function doom.schedule:core/uuid/convert
data modify storage doom.schedule:data uuids append value {}
data modify storage doom.schedule:data uuids[-1].a set from storage doom.schedule:ctx u.a
data modify storage doom.schedule:data uuids[-1].s set from storage doom.schedule:ctx u.s
execute store result score #u.c doom.schedule if data storage doom.schedule:data uuids[]
execute if score #u.c doom.schedule matches 257.. run data remove storage doom.schedule:data uuids[0]
return 1
