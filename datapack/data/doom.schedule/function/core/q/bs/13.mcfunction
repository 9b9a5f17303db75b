# Macro {c}: search step 13 (stride 8192); see core/q/bs_start. Calls core/q/probe/13
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/13.
$function doom.schedule:core/q/probe/13 with storage doom.schedule:data queue[$(c)]
