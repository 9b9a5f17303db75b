# ctx t.new.dimension = the dimension of the current context: the vanilla ones by `execute if
# dimension` (one command for the overworld), others through #doom.schedule:known_dimensions (each
# of its functions runs `execute if dimension <id> run data modify storage doom.schedule:ctx
# dimension set value "<id>"`), else minecraft:overworld. Changes: ctx dimension, ctx t.new.dimension.
execute if dimension minecraft:overworld run return run data modify storage doom.schedule:ctx t.new.dimension set value "minecraft:overworld"
execute if dimension minecraft:the_nether run return run data modify storage doom.schedule:ctx t.new.dimension set value "minecraft:the_nether"
execute if dimension minecraft:the_end run return run data modify storage doom.schedule:ctx t.new.dimension set value "minecraft:the_end"
data remove storage doom.schedule:ctx dimension
function #doom.schedule:known_dimensions
execute unless data storage doom.schedule:ctx dimension run data modify storage doom.schedule:ctx dimension set value "minecraft:overworld"
data modify storage doom.schedule:ctx t.new.dimension set from storage doom.schedule:ctx dimension
