# Macro {online}: is the player of that name online? (The name was checked at scheduling: id
# characters only, so it is read as a player name, never a selector.) Returns 1 or fails.
$execute if entity $(online) run return 1
return fail
