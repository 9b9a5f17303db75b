# Macro {c}: search step 18 (stride 262144); see core/q/bs_start. Calls core/q/probe/18
# with queue[c] itself as the macro arguments (c is always in range), so the probe reads
# its due with no score read. Changes: see core/q/probe/18.
$function doom.schedule:core/q/probe/18 with storage doom.schedule:data queue[$(c)]
