# Macro {c}: search step 1 (stride 2); see core/q/bs_start. Calls core/q/probe/1
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/1.
$function doom.schedule:core/q/probe/1 with storage doom.schedule:data queue[$(c)]
