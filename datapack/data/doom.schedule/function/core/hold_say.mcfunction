# Macro {hold}: the hold's log line (hold is an Int: nothing else is spliced). Changes: nothing.
$say [doom.schedule] holding due tasks for up to $(hold) ticks until released (function doom.schedule:release)
