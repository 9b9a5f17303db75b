# doom.schedule:submit found nothing in storage doom.schedule:in task: a refusal. Fails. Changes: out.
function doom.schedule:core/out {op:"schedule"}
return run function doom.schedule:core/err {code:"no_input",message:"nothing in storage doom.schedule:in task"}
