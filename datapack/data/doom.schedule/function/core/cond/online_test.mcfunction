# Is the player named by ctx x.cur.cond.online online? (`execute if function` takes no macro
# arguments, so this calls core/cond/online with them.) Returns 1 or fails.
return run function doom.schedule:core/cond/online with storage doom.schedule:ctx x.cur.cond
