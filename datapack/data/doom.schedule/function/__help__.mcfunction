# doom.schedule:__help__: tells the caller (a player; nobody else) the call forms. Returns 1.
tellraw @s {"text":"doom.schedule: schedule {run,time,unit,id} | schedule_with_retry {run,time,unit,id,retry,retry_delay} | schedule_every {run,interval,unit,id} | schedule_at {run,tick,id} | api/schedule_dynamic {run,time,unit,prefix}","color":"gold"}
tellraw @s {"text":"units: t s m h d (real day) gd (game day) | cancel_one {id} | cancel_all {id} | count {id} | pause {id} | resume {id} | clear | get_time | storage input: doom.schedule:in task + submit","color":"gold"}
return 1
