# Converts the UUID int array ctx u.a to its hyphenated lowercase hex string in ctx u.s, byte by
# byte through const hex (floorMod/floorDiv keep negative ints right). Changes: ctx u, #u.* scores.
execute store result score #u.0 doom.schedule run data get storage doom.schedule:ctx u.a[0]
execute store result score #u.1 doom.schedule run data get storage doom.schedule:ctx u.a[1]
execute store result score #u.2 doom.schedule run data get storage doom.schedule:ctx u.a[2]
execute store result score #u.3 doom.schedule run data get storage doom.schedule:ctx u.a[3]
scoreboard players operation #u.b doom.schedule = #u.0 doom.schedule
execute store result storage doom.schedule:ctx u.h.b3 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.0 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.0 doom.schedule
execute store result storage doom.schedule:ctx u.h.b2 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.0 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.0 doom.schedule
execute store result storage doom.schedule:ctx u.h.b1 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.0 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.0 doom.schedule
execute store result storage doom.schedule:ctx u.h.b0 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.1 doom.schedule
execute store result storage doom.schedule:ctx u.h.b7 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.1 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.1 doom.schedule
execute store result storage doom.schedule:ctx u.h.b6 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.1 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.1 doom.schedule
execute store result storage doom.schedule:ctx u.h.b5 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.1 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.1 doom.schedule
execute store result storage doom.schedule:ctx u.h.b4 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.2 doom.schedule
execute store result storage doom.schedule:ctx u.h.b11 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.2 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.2 doom.schedule
execute store result storage doom.schedule:ctx u.h.b10 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.2 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.2 doom.schedule
execute store result storage doom.schedule:ctx u.h.b9 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.2 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.2 doom.schedule
execute store result storage doom.schedule:ctx u.h.b8 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.3 doom.schedule
execute store result storage doom.schedule:ctx u.h.b15 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.3 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.3 doom.schedule
execute store result storage doom.schedule:ctx u.h.b14 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.3 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.3 doom.schedule
execute store result storage doom.schedule:ctx u.h.b13 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
scoreboard players operation #u.3 doom.schedule /= #256 doom.schedule
scoreboard players operation #u.b doom.schedule = #u.3 doom.schedule
execute store result storage doom.schedule:ctx u.h.b12 int 1 run scoreboard players operation #u.b doom.schedule %= #256 doom.schedule
function doom.schedule:core/uuid/hex with storage doom.schedule:ctx u.h
