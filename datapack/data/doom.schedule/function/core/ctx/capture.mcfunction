# Records the caller's context in ctx t.new: executor UUID, player flag, dimension, position,
# rotation (and, without an executor, the `at` prefix used to run it). Changes: ctx t.new.
execute if entity @s run return run function doom.schedule:core/ctx/entity
function doom.schedule:core/ctx/server
