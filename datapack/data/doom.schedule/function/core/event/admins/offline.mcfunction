# Macro {id,seq,t}: tells tagged admins event offline (its player is offline; parked until they join). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) is waiting for its player, who is offline (event offline, seq $(seq), t $(t))","color":"yellow"}
