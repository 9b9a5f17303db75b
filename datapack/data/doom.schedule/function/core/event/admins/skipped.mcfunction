# Macro {id,seq,t,why,players}: tells tagged admins event skipped (its conditions were not met when due). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) was skipped: its conditions were not met ($(why), $(players) player(s) online) (event skipped, seq $(seq), t $(t))","color":"yellow"}
