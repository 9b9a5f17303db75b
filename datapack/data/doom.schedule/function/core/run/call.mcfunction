# Macro {run}: the task's own command, in a function call of its own. The first line only runs if
# the macro instantiated, which is how an unparsable command is told apart (#x.inst stays 0).
# #x.ok: 1 succeeded, 0 failed, unchanged (-1) when nothing was stored (see core/run/unstored).
scoreboard players set #x.inst doom.schedule 1
$execute store success score #x.ok doom.schedule run $(run)
