# Macro {key}: doom.schedule:submit_staged found nothing under its key: a refusal. With no staged
# request there is no req to echo, so out.req is "staged.<key>": the caller still knows the
# outcome is its own. Fails. Changes: out.
function doom.schedule:core/out {op:"schedule"}
$data modify storage doom.schedule:out req set value "staged.$(key)"
return run function doom.schedule:core/err {code:"no_input",message:"nothing staged under that key"}
