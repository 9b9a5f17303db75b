# Macro {executor}: runs ctx x.cur as its executor at the executor's current position, or parks /
# drops it when the executor is not loaded. A task with a key says it runs first (core/run/ran).
# Changes: see core/run/triage and core/run/gone.
$execute unless entity $(executor) run return run function doom.schedule:core/run/gone
execute if data storage doom.schedule:ctx x.cur.k run function doom.schedule:core/run/ran
$execute as $(executor) at @s run function doom.schedule:core/run/call with storage doom.schedule:ctx x.cur
function doom.schedule:core/run/triage
