# Macro {c}: search step 0 (stride 1); see core/q/insert. Reads queue[c] (nothing past the end:
# the next line checks c < #q.n before using it). Accepts c when c < #q.n and
# then inserts ctx t.new at c + 1 (accepted) or c. Changes: #q.c, #q.v, ctx q, queue.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(c)].due
execute if score #q.c doom.schedule < #q.n doom.schedule if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players add #q.c doom.schedule 1
execute store result storage doom.schedule:ctx q.i int 1 run scoreboard players get #q.c doom.schedule
function doom.schedule:core/q/insert_at with storage doom.schedule:ctx q
