# Macro {id,seq,t}: tells tagged admins event retry_exhausted (the task failed with no attempts left and was removed). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) failed with no attempts left and was removed (event retry_exhausted, seq $(seq), t $(t))","color":"red"}
