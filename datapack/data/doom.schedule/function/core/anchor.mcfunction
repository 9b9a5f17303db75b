# An interval task (ctx t.interval given, checked): its grid is anchored at its first due tick.
# A function so that a one-off task pays one stage for the test (an inline store stage costs 1
# even when the test passes nothing on). Changes: ctx t.new.anchor.
execute store result storage doom.schedule:ctx t.new.anchor int 1 run scoreboard players get #q.d doom.schedule
