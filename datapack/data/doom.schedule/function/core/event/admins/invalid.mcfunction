# Macro {id,seq,t}: tells tagged admins event invalid (its command does not parse; removed). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) was removed: its command does not parse (event invalid, seq $(seq), t $(t))","color":"red"}
