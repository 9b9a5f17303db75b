# Raises event ctx e (type and details set) about task ctx x.cur: adds its id and executor.
data modify storage doom.schedule:ctx e.id set from storage doom.schedule:ctx x.cur.id
data modify storage doom.schedule:ctx e.by set from storage doom.schedule:ctx x.cur.executor
function doom.schedule:core/event/raise
