# Macro {c}: search step 4 (stride 16); see core/q/bs_start. Calls core/q/probe/4
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/4.
$function doom.schedule:core/q/probe/4 with storage doom.schedule:data queue[$(c)]
