# Macro {code,message}: records a refusal in doom.schedule:out (keeping req/op), tells the caller if
# it is a player, and fails. Changes: out.
$data modify storage doom.schedule:out code set value "$(code)"
$data modify storage doom.schedule:out message set value "$(message)"
data modify storage doom.schedule:out ok set value 0b
$tellraw @s[type=minecraft:player] {"text":"[doom.schedule] $(message)","color":"red"}
return fail
