# Task ctx x.cur, which has a caller key (k), has just run its command (any outcome): event ran,
# so that a record outside the world (the server log) says what ran before a crash rolled the
# world back. Not for a command that did not instantiate (#x.st -2: event invalid alone). Tasks
# without k (made in game) raise no ran event. Input: #x.st. Changes: ctx e, events.
execute if score #x.st doom.schedule matches -2 run return 0
data modify storage doom.schedule:ctx e set value {type:"ran"}
function doom.schedule:core/run/event
