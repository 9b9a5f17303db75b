# Macro {c}: search step 12 (stride 4096); see core/q/bs_start. Calls core/q/probe/12
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/12.
$function doom.schedule:core/q/probe/12 with storage doom.schedule:data queue[$(c)]
