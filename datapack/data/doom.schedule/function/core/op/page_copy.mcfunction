# Macro {list,i}: appends data <list>[i] to out page (list is queue, offline or paused: checked).
$data modify storage doom.schedule:out page append from storage doom.schedule:data $(list)[$(i)]
