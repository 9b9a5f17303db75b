# Task ctx x.cur, which has a caller key (k), is about to run its command (whatever the outcome):
# event ran, so that a record outside the world (the server log) says what ran before a crash
# rolled the world back. Said before the command: a log cut between the two lines (SIGKILL)
# leaves a task counted as run, never one run twice. Tasks without k (made in game) raise no ran
# event. Changes: ctx e, events.
data modify storage doom.schedule:ctx e set value {type:"ran"}
function doom.schedule:core/run/event
