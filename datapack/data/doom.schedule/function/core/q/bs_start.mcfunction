# Starts the binary search for the insertion index of #q.d in a queue of #q.n >= 2 tasks whose
# first is due at or before #q.d and whose last after it (Shar's method: every index read is in
# range, so no step needs to test it). n = 2 or 3: core/q/bs/0 at index 1. Otherwise M = the largest
# power of two <= n - 2 and core/q/go/<k> gets queue[M] as its macro arguments. Cost O(log n). Changes: see
# core/q/go/* and core/q/bs/*.
execute if score #q.n doom.schedule matches 1048578.. run return run function doom.schedule:core/q/go/19 with storage doom.schedule:data queue[1048576]
execute if score #q.n doom.schedule matches 524290.. run return run function doom.schedule:core/q/go/18 with storage doom.schedule:data queue[524288]
execute if score #q.n doom.schedule matches 262146.. run return run function doom.schedule:core/q/go/17 with storage doom.schedule:data queue[262144]
execute if score #q.n doom.schedule matches 131074.. run return run function doom.schedule:core/q/go/16 with storage doom.schedule:data queue[131072]
execute if score #q.n doom.schedule matches 65538.. run return run function doom.schedule:core/q/go/15 with storage doom.schedule:data queue[65536]
execute if score #q.n doom.schedule matches 32770.. run return run function doom.schedule:core/q/go/14 with storage doom.schedule:data queue[32768]
execute if score #q.n doom.schedule matches 16386.. run return run function doom.schedule:core/q/go/13 with storage doom.schedule:data queue[16384]
execute if score #q.n doom.schedule matches 8194.. run return run function doom.schedule:core/q/go/12 with storage doom.schedule:data queue[8192]
execute if score #q.n doom.schedule matches 4098.. run return run function doom.schedule:core/q/go/11 with storage doom.schedule:data queue[4096]
execute if score #q.n doom.schedule matches 2050.. run return run function doom.schedule:core/q/go/10 with storage doom.schedule:data queue[2048]
execute if score #q.n doom.schedule matches 1026.. run return run function doom.schedule:core/q/go/9 with storage doom.schedule:data queue[1024]
execute if score #q.n doom.schedule matches 514.. run return run function doom.schedule:core/q/go/8 with storage doom.schedule:data queue[512]
execute if score #q.n doom.schedule matches 258.. run return run function doom.schedule:core/q/go/7 with storage doom.schedule:data queue[256]
execute if score #q.n doom.schedule matches 130.. run return run function doom.schedule:core/q/go/6 with storage doom.schedule:data queue[128]
execute if score #q.n doom.schedule matches 66.. run return run function doom.schedule:core/q/go/5 with storage doom.schedule:data queue[64]
execute if score #q.n doom.schedule matches 34.. run return run function doom.schedule:core/q/go/4 with storage doom.schedule:data queue[32]
execute if score #q.n doom.schedule matches 18.. run return run function doom.schedule:core/q/go/3 with storage doom.schedule:data queue[16]
execute if score #q.n doom.schedule matches 10.. run return run function doom.schedule:core/q/go/2 with storage doom.schedule:data queue[8]
execute if score #q.n doom.schedule matches 6.. run return run function doom.schedule:core/q/go/1 with storage doom.schedule:data queue[4]
execute if score #q.n doom.schedule matches 4.. run return run function doom.schedule:core/q/go/0 with storage doom.schedule:data queue[2]
scoreboard players set #q.c doom.schedule 1
function doom.schedule:core/q/bs/0 {c:1}
