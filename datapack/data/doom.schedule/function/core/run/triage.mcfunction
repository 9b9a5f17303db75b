# Decides what happens to ctx x.cur after its command ran: invalid, success, or failure.
# Input: #x.inst, #x.ok. Changes: stats.runs, and see the functions called.
execute store result score #x.runs doom.schedule run data get storage doom.schedule:data stats.runs
execute store result storage doom.schedule:data stats.runs int 1 run scoreboard players add #x.runs doom.schedule 1
execute if score #x.inst doom.schedule matches 0 run return run function doom.schedule:core/run/invalid
execute if score #x.ok doom.schedule matches -1 run function doom.schedule:core/run/unstored
execute if score #x.ok doom.schedule matches 1 run return run function doom.schedule:core/run/success
function doom.schedule:core/run/failed
