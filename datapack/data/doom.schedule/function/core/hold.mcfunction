# cfg.hold >= 1: due tasks wait up to cfg.hold ticks after this #load, until the caller that set
# it (the bot) has compared the lists with its own record and calls doom.schedule:release (after a
# crash the world is that of the last save, which may hold tasks that already ran). Said in the
# log, so that the caller knows it must look. Input: #hold.n (cfg.hold). Changes: #hold, #hold.n.
execute store result score #hold doom.schedule run time query gametime
scoreboard players operation #hold doom.schedule += #hold.n doom.schedule
function doom.schedule:core/hold_say with storage doom.schedule:data cfg
