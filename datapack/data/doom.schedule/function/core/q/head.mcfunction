# Refreshes #head = queue[0].due, or 2147483647 when the queue is empty, and #head1 = #head - 1
# (what core/tick compares the game time with). Changes: #head, #head1.
scoreboard players set #head doom.schedule 2147483647
execute if data storage doom.schedule:data queue[0] store result score #head doom.schedule run data get storage doom.schedule:data queue[0].due
scoreboard players operation #head1 doom.schedule = #head doom.schedule
scoreboard players remove #head1 doom.schedule 1
