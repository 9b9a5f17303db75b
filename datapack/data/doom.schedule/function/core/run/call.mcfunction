# Macro {run}: the task's own command, in a function call of its own. The first line only runs if
# the macro instantiated, which is how an unparsable command is told apart (#x.st stays -2).
# #x.st: 1 succeeded, 0 failed, -1 when nothing was stored (see core/run/unstored).
scoreboard players set #x.st doom.schedule -1
$execute store success score #x.st doom.schedule run $(run)
