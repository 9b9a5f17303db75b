# Task ctx x.cur, which has a caller key (k), has just run its command (any outcome): event ran,
# so that a record outside the world (the server log) says what ran before a crash rolled the
# world back. Tasks without k (made in game) raise no ran event. Changes: ctx e, events.
data modify storage doom.schedule:ctx e set value {type:"ran"}
function doom.schedule:core/run/event
