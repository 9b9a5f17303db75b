# #minecraft:load: creates objectives, constants and default settings (safe to run twice) and
# makes every player count as joining again (a restart does not count leave_game, so parked tasks
# of players online at the stop would otherwise never come back): `scoreboard players set *`
# reaches offline players too, every score holder the scoreboard knows (players get a
# doom.schedule.left score when they schedule a task, so each player with tasks is known).
# With cfg.hold >= 1 it holds due tasks for that many ticks (core/hold): a #load cannot tell a
# start from a /reload, so a reload holds too, until released. No arguments. Changes: objectives doom.schedule*, storages const/data/events, score holders #*,
# doom.schedule.left of every known holder.
scoreboard objectives add doom.schedule dummy
scoreboard objectives add doom.schedule.left minecraft.custom:minecraft.leave_game
scoreboard players set #2 doom.schedule 2
scoreboard players set #256 doom.schedule 256
data modify storage doom.schedule:const version set value "2.2.0"
data modify storage doom.schedule:const units set value {t:1,tick:1,ticks:1,s:20,second:20,seconds:20,m:1200,minute:1200,minutes:1200,h:72000,hour:72000,hours:72000,d:1728000,day:1728000,days:1728000,gd:24000,game_day:24000,game_days:24000}
data modify storage doom.schedule:const hex set value ["00","01","02","03","04","05","06","07","08","09","0a","0b","0c","0d","0e","0f","10","11","12","13","14","15","16","17","18","19","1a","1b","1c","1d","1e","1f","20","21","22","23","24","25","26","27","28","29","2a","2b","2c","2d","2e","2f","30","31","32","33","34","35","36","37","38","39","3a","3b","3c","3d","3e","3f","40","41","42","43","44","45","46","47","48","49","4a","4b","4c","4d","4e","4f","50","51","52","53","54","55","56","57","58","59","5a","5b","5c","5d","5e","5f","60","61","62","63","64","65","66","67","68","69","6a","6b","6c","6d","6e","6f","70","71","72","73","74","75","76","77","78","79","7a","7b","7c","7d","7e","7f","80","81","82","83","84","85","86","87","88","89","8a","8b","8c","8d","8e","8f","90","91","92","93","94","95","96","97","98","99","9a","9b","9c","9d","9e","9f","a0","a1","a2","a3","a4","a5","a6","a7","a8","a9","aa","ab","ac","ad","ae","af","b0","b1","b2","b3","b4","b5","b6","b7","b8","b9","ba","bb","bc","bd","be","bf","c0","c1","c2","c3","c4","c5","c6","c7","c8","c9","ca","cb","cc","cd","ce","cf","d0","d1","d2","d3","d4","d5","d6","d7","d8","d9","da","db","dc","dd","de","df","e0","e1","e2","e3","e4","e5","e6","e7","e8","e9","ea","eb","ec","ed","ee","ef","f0","f1","f2","f3","f4","f5","f6","f7","f8","f9","fa","fb","fc","fd","fe","ff"]
execute unless data storage doom.schedule:data queue run data modify storage doom.schedule:data queue set value []
execute unless data storage doom.schedule:data offline run data modify storage doom.schedule:data offline set value []
execute unless data storage doom.schedule:data paused run data modify storage doom.schedule:data paused set value []
execute unless data storage doom.schedule:data uuids run data modify storage doom.schedule:data uuids set value []
execute unless data storage doom.schedule:data cfg.cap run data modify storage doom.schedule:data cfg.cap set value 100
execute unless data storage doom.schedule:data cfg.log run data modify storage doom.schedule:data cfg.log set value 1b
execute unless data storage doom.schedule:data cfg.admins run data modify storage doom.schedule:data cfg.admins set value 1b
execute unless data storage doom.schedule:data cfg.events_max run data modify storage doom.schedule:data cfg.events_max set value 256
execute unless data storage doom.schedule:data cfg.hold run data modify storage doom.schedule:data cfg.hold set value 0
execute unless data storage doom.schedule:data dyn run data modify storage doom.schedule:data dyn set value 0
execute unless data storage doom.schedule:data stats run data modify storage doom.schedule:data stats set value {deferred:0,late:0}
execute unless data storage doom.schedule:events seq run data modify storage doom.schedule:events seq set value 0
execute unless data storage doom.schedule:events entries run data modify storage doom.schedule:events entries set value []
scoreboard players set * doom.schedule.left 1
data remove storage doom.schedule:data session
data remove storage doom.schedule:data watch
schedule clear doom.schedule:core/watch
function doom.schedule:core/q/head
scoreboard players set #hold doom.schedule 0
execute store result score #hold.n doom.schedule run data get storage doom.schedule:data cfg.hold
execute if score #hold.n doom.schedule matches 1.. run function doom.schedule:core/hold
