# Appends event ctx e {type,id,by?,retry?,late?} with the next seq and the game time to the ring buffer
# (dropping the oldest beyond cfg.events_max), says it when cfg.log is 1b and tells the online
# players tagged doom.schedule.admin when cfg.admins is 1b (not of ran: routine). Run as the server only.
# Changes: events, ctx e.
execute store result score #e.seq doom.schedule run data get storage doom.schedule:events seq
execute store result storage doom.schedule:events seq int 1 run scoreboard players add #e.seq doom.schedule 1
data modify storage doom.schedule:ctx e.seq set from storage doom.schedule:events seq
execute store result storage doom.schedule:ctx e.t int 1 run time query gametime
data modify storage doom.schedule:events entries append from storage doom.schedule:ctx e
execute store result score #e.n doom.schedule if data storage doom.schedule:events entries[]
execute store result score #e.max doom.schedule run data get storage doom.schedule:data cfg.events_max
execute if score #e.n doom.schedule > #e.max doom.schedule run data remove storage doom.schedule:events entries[0]
execute if data storage doom.schedule:data cfg{log:1b} run function doom.schedule:core/event/say
execute if data storage doom.schedule:data cfg{admins:1b} unless data storage doom.schedule:ctx e{type:"ran"} if entity @a[tag=doom.schedule.admin] run function doom.schedule:core/event/admins with storage doom.schedule:ctx e
