# Every 20 ticks (scheduled; restarted by #load): restores the parked tasks of players who joined.
# Cost when nobody joined: three selector tests. Changes: ctx r, then see core/restore/*.
schedule function doom.schedule:core/watch 20t replace
data remove storage doom.schedule:ctx r
function doom.schedule:core/restore/check with storage doom.schedule:data watch
