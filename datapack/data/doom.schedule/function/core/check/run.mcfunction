# Is ctx t.run a String of 1 to 32000 characters? Removes one leading "/". Returns 1 or fails.
# A copy made with `set string` equals the original only for a String (if `set string` fails, s
# keeps an older String, which a non-String run differs from too). Changes: ctx t.run, ctx s.
data modify storage doom.schedule:ctx s set string storage doom.schedule:ctx t.run
execute store success score #chk doom.schedule run data modify storage doom.schedule:ctx s set from storage doom.schedule:ctx t.run
execute if score #chk doom.schedule matches 1 run return fail
execute store result score #len doom.schedule run data get storage doom.schedule:ctx t.run
execute unless score #len doom.schedule matches 1..32000 run return fail
data modify storage doom.schedule:ctx s set string storage doom.schedule:ctx t.run 0 1
execute if data storage doom.schedule:ctx {s:"/"} run data modify storage doom.schedule:ctx t.run set string storage doom.schedule:ctx t.run 1
return 1
