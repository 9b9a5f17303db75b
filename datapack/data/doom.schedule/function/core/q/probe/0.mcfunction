# Macro {due} (queue[c].due, c = #q.c): last search step; see core/q/bs_start. Inserts
# ctx t.new at c + 1 when due <= #q.d, else at c. Changes: #q.c, ctx q, queue.
$execute if score #q.d doom.schedule matches $(due).. run scoreboard players add #q.c doom.schedule 1
execute store result storage doom.schedule:ctx q.i int 1 run scoreboard players get #q.c doom.schedule
function doom.schedule:core/q/insert_at with storage doom.schedule:ctx q
