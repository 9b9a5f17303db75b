# Records in ctx x.cur.late how many ticks after its due tick the task ran (#now - due).
# Changes: ctx x.cur.late, #x.late.
execute store result score #x.late doom.schedule run data get storage doom.schedule:ctx x.cur.due
scoreboard players operation #x.late doom.schedule -= #now doom.schedule
execute store result storage doom.schedule:ctx x.cur.late int -1 run scoreboard players get #x.late doom.schedule
