# Raises event ctx e (type and details set) about task ctx x.cur, which ran (or was due) this tick:
# adds its id, executor, caller key (k) and, when the run was late, late (ticks after its due tick).
# Changes: ctx e, ctx x.cur.late, events.
data modify storage doom.schedule:ctx e.id set from storage doom.schedule:ctx x.cur.id
data modify storage doom.schedule:ctx e.by set from storage doom.schedule:ctx x.cur.executor
data modify storage doom.schedule:ctx e.k set from storage doom.schedule:ctx x.cur.k
function doom.schedule:core/run/late
execute if score #x.late doom.schedule matches ..-1 run data modify storage doom.schedule:ctx e.late set from storage doom.schedule:ctx x.cur.late
function doom.schedule:core/event/raise
