# Macro {id,seq,t}: tells tagged admins event dropped (the entity that scheduled it is gone; removed). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) was removed: the entity that scheduled it is gone (event dropped, seq $(seq), t $(t))","color":"red"}
