# Macro {unit}: returns the unit's length in ticks from const units; fails for an unknown unit (a
# unit that breaks the path fails to instantiate, which also fails).
$return run data get storage doom.schedule:const units."$(unit)"
