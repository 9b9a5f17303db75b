# Macro {type,id,seq,t,x}: the event's log line. Only validated ids and hex UUIDs reach it, so
# `say` has no selector to expand.
$say [doom.schedule] event=$(type) id=$(id) seq=$(seq) t=$(t)$(x)
