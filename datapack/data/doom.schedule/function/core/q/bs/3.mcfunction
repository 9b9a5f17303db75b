# Macro {c}: search step 3 (stride 8); see core/q/bs_start. Calls core/q/probe/3
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/3.
$function doom.schedule:core/q/probe/3 with storage doom.schedule:data queue[$(c)]
