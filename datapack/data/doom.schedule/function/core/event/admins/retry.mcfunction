# Macro {id,seq,t,retry}: tells tagged admins event retry (the task failed and will run again). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) failed; retrying, $(retry) attempt(s) left (event retry, seq $(seq), t $(t))","color":"yellow"}
