# Records the caller's context in ctx t.new: executor UUID, player flag, dimension, position,
# rotation (and, without an executor, the `at` prefix used to run it). An entity caller:
# core/ctx/entity. Without an entity (console, RCON, command block; inline, as enqueue is the hot
# path): dimension, position and rotation, read from a marker summoned at the context
# (core/ctx/probe), then the `at` prefix that restores them. If the marker cannot be summoned
# (unloaded chunk) the world origin is used. The probe ends the capture with the `at` prefix itself
# (returning 1), so the origin needs no test.
# Changes: ctx t.new, ctx p; summons and kills one marker tagged doom.schedule.probe.
execute if entity @s run return run function doom.schedule:core/ctx/entity
function doom.schedule:core/ctx/dimension
summon minecraft:marker ~ ~ ~ {Tags:["doom.schedule.probe"]}
execute as @e[type=minecraft:marker,tag=doom.schedule.probe,limit=1] run return run function doom.schedule:core/ctx/probe
function doom.schedule:core/ctx/origin
data modify storage doom.schedule:ctx p.dimension set from storage doom.schedule:ctx t.new.dimension
function doom.schedule:core/ctx/at with storage doom.schedule:ctx p
