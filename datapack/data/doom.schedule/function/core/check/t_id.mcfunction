# Checks ctx t.id as core/check/k_id checks k.id, but in place (no copy into ctx k: enqueue is the
# hot path): a String of 1 to 64 characters from [A-Za-z0-9_.+-]. ctx s is scratch (a stale s
# never equals a non-String id). Returns 1 or fails. Changes: ctx s, #k.chk, #k.len.
data modify storage doom.schedule:ctx s set string storage doom.schedule:ctx t.id
execute store success score #k.chk doom.schedule run data modify storage doom.schedule:ctx s set from storage doom.schedule:ctx t.id
execute if score #k.chk doom.schedule matches 1 run return fail
execute store result score #k.len doom.schedule run data get storage doom.schedule:ctx t.id
execute unless score #k.len doom.schedule matches 1..64 run return fail
return run function doom.schedule:core/check/chars with storage doom.schedule:ctx t
