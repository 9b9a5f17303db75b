# Copies data <ctx c.list>[#pg.i] to out page, then the next (tail call) while #pg.i < #pg.e and
# the copied `run` texts are under 8000 characters. Changes: out page, #pg.i, #pg.len, ctx c.i.
execute store result storage doom.schedule:ctx c.i int 1 run scoreboard players get #pg.i doom.schedule
function doom.schedule:core/op/page_copy with storage doom.schedule:ctx c
scoreboard players add #pg.i doom.schedule 1
execute store result score #pg.l doom.schedule run data get storage doom.schedule:out page[-1].run
scoreboard players operation #pg.len doom.schedule += #pg.l doom.schedule
execute if score #pg.len doom.schedule matches 8000.. run return 0
execute if score #pg.i doom.schedule < #pg.e doom.schedule run function doom.schedule:core/op/page_next
