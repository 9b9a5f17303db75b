# Macro {a}: copies the cached string of UUID a into ctx u.s. Returns 1, or fails when not cached.
$return run data modify storage doom.schedule:ctx u.s set from storage doom.schedule:data uuids[{a:$(a)}].s
