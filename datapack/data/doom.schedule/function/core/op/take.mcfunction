# Macro {list,id}: removes the first task with this id from data <list> into ctx c.task (found by
# its unique serial n, so the others keep their order). Returns 1, or fails when there is none.
# Changes: data <list>, #head, ctx c.
$execute unless data storage doom.schedule:data $(list)[{id:"$(id)"}] run return fail
data modify storage doom.schedule:ctx c.l set value []
$data modify storage doom.schedule:ctx c.l append from storage doom.schedule:data $(list)[{id:"$(id)"}]
data modify storage doom.schedule:ctx c.task set from storage doom.schedule:ctx c.l[0]
data modify storage doom.schedule:ctx c.n set from storage doom.schedule:ctx c.task.n
data remove storage doom.schedule:ctx c.l
function doom.schedule:core/op/remove_n with storage doom.schedule:ctx c
function doom.schedule:core/q/head
return 1
