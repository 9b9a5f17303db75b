# Macro {id,seq,t,why,players,then}: tells tagged admins event waited (it waited for its conditions as long as allowed). Changes: nothing.
$tellraw @a[tag=doom.schedule.admin] {"text":"[doom.schedule] task $(id) waited for its conditions as long as allowed ($(why), $(players) player(s) online); then: $(then) (event waited, seq $(seq), t $(t))","color":"yellow"}
