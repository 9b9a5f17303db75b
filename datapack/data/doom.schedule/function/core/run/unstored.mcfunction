# The command stored no result: a `function` command whose function ended without `return` ran,
# so it succeeded; anything else ran in no context at all (e.g. `execute if` that matched nothing),
# which is a failure. Changes: #x.st, ctx x.p.
scoreboard players set #x.st doom.schedule 0
data remove storage doom.schedule:ctx x.p
data modify storage doom.schedule:ctx x.p set string storage doom.schedule:ctx x.cur.run 0 9
execute if data storage doom.schedule:ctx x{p:"function "} run scoreboard players set #x.st doom.schedule 1
