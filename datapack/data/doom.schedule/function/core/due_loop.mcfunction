# One due task per pass (tail call) until none is due or #ran reaches #cap.
# Input: #now, #head, #cap, #ran. Changes: #ran, queue (via core/run/next).
execute if score #ran doom.schedule >= #cap doom.schedule run return 0
execute unless score #now doom.schedule >= #head doom.schedule run return 0
scoreboard players add #ran doom.schedule 1
function doom.schedule:core/run/next
function doom.schedule:core/due_loop
