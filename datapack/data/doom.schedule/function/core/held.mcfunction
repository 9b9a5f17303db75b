# Is #load's hold (core/hold) still on? #hold is the game time it lasts until; the caller's
# release (doom.schedule:release) sets it to 0. Past it, the hold ends here, said in the log, and
# due tasks run (late). Input: #now (game time), #hold. Returns 1 while holding, else fails.
# Changes: #hold.
execute if score #now doom.schedule < #hold doom.schedule run return 1
scoreboard players set #hold doom.schedule 0
say [doom.schedule] hold ended: nobody released it in time; due tasks run now
return fail
