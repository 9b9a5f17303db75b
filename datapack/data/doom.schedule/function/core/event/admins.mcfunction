# Macro {type}: tells the online players tagged doom.schedule.admin about event ctx e (which has
# type, id, seq, t, and retry for retry events), in the event type's own words. Only validated ids
# and numbers reach the text. Called by core/event/raise when cfg.admins is 1b and such a player is
# online, so it costs nothing when nobody listens.
$function doom.schedule:core/event/admins/$(type) with storage doom.schedule:ctx e
