# The request's caller key ctx t.key (a String of 1 to 64 characters from [A-Za-z0-9_.+-], as an
# id): checked, then copied to the new task as k, which its events carry (k=<key>) and which is
# the caller's own name for the task (the bot's survives a rollback; the serial n does not).
# Returns 1 or fails. Changes: ctx k, ctx t.new.k, #k.*.
data modify storage doom.schedule:ctx k set value {}
data modify storage doom.schedule:ctx k.id set from storage doom.schedule:ctx t.key
execute unless function doom.schedule:core/check/k_id run return fail
data modify storage doom.schedule:ctx t.new.k set from storage doom.schedule:ctx t.key
return 1
