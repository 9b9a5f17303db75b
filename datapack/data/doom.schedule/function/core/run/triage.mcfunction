# Decides what happens to ctx x.cur after its command ran: invalid, success, or failure.
# The common outcome (a one-off task succeeded) is tested first, in one two-stage line.
# Input: #x.st. Changes: see the functions called.
execute if score #x.st doom.schedule matches 1 if data storage doom.schedule:ctx x.cur{interval:0} run return 1
execute if score #x.st doom.schedule matches 1 run return run function doom.schedule:core/run/again
execute if score #x.st doom.schedule matches -2 run return run function doom.schedule:core/run/invalid
execute if score #x.st doom.schedule matches -1 run function doom.schedule:core/run/unstored
execute if score #x.st doom.schedule matches 1 run return run function doom.schedule:core/run/success
function doom.schedule:core/run/failed
