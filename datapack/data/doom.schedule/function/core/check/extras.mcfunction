# The storage input's optional parts, tested only when submit marked the request (ctx t.x): its
# caller key (core/check/key) and its conditions (core/check/cond). The macro forms carry neither,
# so they pay one test for both. Returns 1, or fails with the reason in out (bad_key, bad_cond).
# Changes: out, ctx t.new.k, ctx t.new.cond (see the checks).
execute if data storage doom.schedule:ctx t.key unless function doom.schedule:core/check/key run return run function doom.schedule:core/err {code:"bad_key",message:"key must be 1 to 64 characters from A-Z a-z 0-9 _ . + -"}
execute if data storage doom.schedule:ctx t.cond unless function doom.schedule:core/check/cond run return run function doom.schedule:core/err {code:"bad_cond",message:"cond must be a compound: min and max Ints of at least 0 (min <= max), online a player name of 1 to 16 characters, wait an Int of at least 0, then run or skip"}
return 1
