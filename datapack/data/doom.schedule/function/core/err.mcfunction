# Macro {code,message}: records a refusal in doom.schedule:out (keeping req/op), tells the caller if
# it is a player, and fails. A caller that is no player (command block, function, other entity)
# and gave no req (so reads no outcome) has nobody to tell: the players tagged
# doom.schedule.admin are told instead when cfg.admins is 1b, except for not_found (a cancel or
# pause of a task that already ran is routine). Changes: out.
$data modify storage doom.schedule:out code set value "$(code)"
$data modify storage doom.schedule:out message set value "$(message)"
data modify storage doom.schedule:out ok set value 0b
$tellraw @s[type=minecraft:player] {"text":"[doom.schedule] $(message)","color":"red"}
$execute unless entity @s[type=minecraft:player] unless data storage doom.schedule:out req unless data storage doom.schedule:out {code:"not_found"} if data storage doom.schedule:data cfg{admins:1b} run tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] refused a call that had no player to tell (command block, function, console): $(message) (code $(code))","color":"red"}
return fail
