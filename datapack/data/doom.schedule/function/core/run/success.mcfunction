# The command succeeded: a one-off task is done; an interval task goes back to the queue.
# Changes: see core/run/again.
execute if data storage doom.schedule:ctx x.cur{interval:0} run return 1
function doom.schedule:core/run/again
