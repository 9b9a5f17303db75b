# Is ctx v an Int of at least 0 (core/check/int)? Returns 1 with #v = its value, or fails.
# Changes: #v, #chk, ctx w.
execute unless function doom.schedule:core/check/int run return fail
execute unless score #v doom.schedule matches 0.. run return fail
return 1
