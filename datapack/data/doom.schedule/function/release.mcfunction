# doom.schedule:release: ends the hold that #load started (cfg.hold >= 1, core/hold), so due
# tasks run from the next tick. No arguments. Returns 1 if it was holding, else 0.
# Changes: #hold.
execute unless score #hold doom.schedule matches 1.. run return 0
scoreboard players set #hold doom.schedule 0
return 1
