# Macro {id,seq,t}: tells tagged admins event restored (its player joined; back in the queue). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) is back in the queue: its player joined (event restored, seq $(seq), t $(t))","color":"green"}
