# A run of ctx x.cur that did not happen (skipped): a one-off task is removed; an interval task
# goes back to the queue at its next boundary (core/run/again). Returns 0. Changes: queue.
execute if data storage doom.schedule:ctx x.cur{interval:0} run return 0
data remove storage doom.schedule:ctx x.cur.cond.until
function doom.schedule:core/run/again
return 0
