# Is ctx k.id a String of 1 to 64 characters from [A-Za-z0-9_.+-]? Returns 1 (#k.len = length) or
# fails. No macro line sees the id before its type and length are checked. Callers start from
# k = {id} (no stale k.s). Changes: ctx k.s, #k.*.
data modify storage doom.schedule:ctx k.s set string storage doom.schedule:ctx k.id
execute store success score #k.chk doom.schedule run data modify storage doom.schedule:ctx k.s set from storage doom.schedule:ctx k.id
execute if score #k.chk doom.schedule matches 1 run return fail
execute store result score #k.len doom.schedule run data get storage doom.schedule:ctx k.id
execute unless score #k.len doom.schedule matches 1..64 run return fail
return run function doom.schedule:core/check/chars with storage doom.schedule:ctx k
