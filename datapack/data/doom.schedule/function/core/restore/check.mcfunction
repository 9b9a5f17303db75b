# Macro {prev}: marks players who joined since last seen: never seen (no tag), last seen in an
# earlier session (before the last #load: covers a restart, which leave_game misses), or with a
# leave_game count. Then restores their tasks as the server. Changes: see core/restore/*.
$execute as @a[scores={doom.schedule.sess=..$(prev)}] run function doom.schedule:core/restore/mark
execute as @a[tag=!doom.schedule.seen] run function doom.schedule:core/restore/mark
execute as @a[scores={doom.schedule.left=1..}] run function doom.schedule:core/restore/mark
execute if data storage doom.schedule:ctx r.p[0] run function doom.schedule:core/restore/players
