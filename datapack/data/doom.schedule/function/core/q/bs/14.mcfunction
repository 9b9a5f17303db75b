# Macro {c}: search step 14 (stride 16384); see core/q/bs_start. Calls core/q/probe/14
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/14.
$function doom.schedule:core/q/probe/14 with storage doom.schedule:data queue[$(c)]
