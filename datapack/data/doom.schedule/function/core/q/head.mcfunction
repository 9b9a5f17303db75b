# Refreshes #head = queue[0].due, or 2147483647 when the queue is empty. Changes: #head.
scoreboard players set #head doom.schedule 2147483647
execute if data storage doom.schedule:data queue[0] store result score #head doom.schedule run data get storage doom.schedule:data queue[0].due
