# Macro {c}: last search step (stride 1); see core/q/bs_start. Reads queue[c] (always in
# range) and inserts ctx t.new at c + 1 when queue[c].due <= #q.d, else at c.
# Changes: #q.c, #q.v, ctx q, queue.
$execute store result score #q.v doom.schedule run data get storage doom.schedule:data queue[$(c)].due
execute if score #q.v doom.schedule <= #q.d doom.schedule run scoreboard players add #q.c doom.schedule 1
execute store result storage doom.schedule:ctx q.i int 1 run scoreboard players get #q.c doom.schedule
function doom.schedule:core/q/insert_at with storage doom.schedule:ctx q
