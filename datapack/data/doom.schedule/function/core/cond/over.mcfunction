# The wait of ctx x.cur ran out with its conditions still unmet: event waited with the reason
# (why, players) and what happens now (then); cond.then "run" runs it now, "skip" ends this run
# (core/cond/done). Returns 1 when it runs now, else 0. Changes: ctx e, ctx x.cur.cond.until.
data modify storage doom.schedule:ctx e set value {type:"waited"}
data modify storage doom.schedule:ctx e.why set from storage doom.schedule:ctx cw.why
data modify storage doom.schedule:ctx e.players set from storage doom.schedule:ctx cw.players
data modify storage doom.schedule:ctx e.then set from storage doom.schedule:ctx x.cur.cond.then
function doom.schedule:core/run/event
data remove storage doom.schedule:ctx x.cur.cond.until
execute if data storage doom.schedule:ctx x.cur.cond{then:"run"} run return 1
return run function doom.schedule:core/cond/done
