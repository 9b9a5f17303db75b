# Checks ctx t.id (see core/check/k_id). Returns 1 or fails. Changes: ctx k.
data modify storage doom.schedule:ctx k set value {}
data modify storage doom.schedule:ctx k.id set from storage doom.schedule:ctx t.id
return run function doom.schedule:core/check/k_id
