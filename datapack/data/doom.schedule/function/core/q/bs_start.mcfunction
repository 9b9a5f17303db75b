# Starts the binary search for the insertion index of #q.d in a queue of #q.n >= 2 tasks whose
# first is due at or before #q.d and whose last after it (Shar's method: every index read is in
# range, so no step needs to test it). n = 2 or 3: core/q/bs/0 at index 1. Otherwise M = the largest
# power of two <= n - 2 and core/q/bs_go reads queue[M] first. Cost O(log n). Changes: see
# core/q/bs_go and core/q/bs/*.
execute if score #q.n doom.schedule matches 1048578.. run return run function doom.schedule:core/q/bs_go {k:19,m:1048576,m1:1048577,h:524288}
execute if score #q.n doom.schedule matches 524290.. run return run function doom.schedule:core/q/bs_go {k:18,m:524288,m1:524289,h:262144}
execute if score #q.n doom.schedule matches 262146.. run return run function doom.schedule:core/q/bs_go {k:17,m:262144,m1:262145,h:131072}
execute if score #q.n doom.schedule matches 131074.. run return run function doom.schedule:core/q/bs_go {k:16,m:131072,m1:131073,h:65536}
execute if score #q.n doom.schedule matches 65538.. run return run function doom.schedule:core/q/bs_go {k:15,m:65536,m1:65537,h:32768}
execute if score #q.n doom.schedule matches 32770.. run return run function doom.schedule:core/q/bs_go {k:14,m:32768,m1:32769,h:16384}
execute if score #q.n doom.schedule matches 16386.. run return run function doom.schedule:core/q/bs_go {k:13,m:16384,m1:16385,h:8192}
execute if score #q.n doom.schedule matches 8194.. run return run function doom.schedule:core/q/bs_go {k:12,m:8192,m1:8193,h:4096}
execute if score #q.n doom.schedule matches 4098.. run return run function doom.schedule:core/q/bs_go {k:11,m:4096,m1:4097,h:2048}
execute if score #q.n doom.schedule matches 2050.. run return run function doom.schedule:core/q/bs_go {k:10,m:2048,m1:2049,h:1024}
execute if score #q.n doom.schedule matches 1026.. run return run function doom.schedule:core/q/bs_go {k:9,m:1024,m1:1025,h:512}
execute if score #q.n doom.schedule matches 514.. run return run function doom.schedule:core/q/bs_go {k:8,m:512,m1:513,h:256}
execute if score #q.n doom.schedule matches 258.. run return run function doom.schedule:core/q/bs_go {k:7,m:256,m1:257,h:128}
execute if score #q.n doom.schedule matches 130.. run return run function doom.schedule:core/q/bs_go {k:6,m:128,m1:129,h:64}
execute if score #q.n doom.schedule matches 66.. run return run function doom.schedule:core/q/bs_go {k:5,m:64,m1:65,h:32}
execute if score #q.n doom.schedule matches 34.. run return run function doom.schedule:core/q/bs_go {k:4,m:32,m1:33,h:16}
execute if score #q.n doom.schedule matches 18.. run return run function doom.schedule:core/q/bs_go {k:3,m:16,m1:17,h:8}
execute if score #q.n doom.schedule matches 10.. run return run function doom.schedule:core/q/bs_go {k:2,m:8,m1:9,h:4}
execute if score #q.n doom.schedule matches 6.. run return run function doom.schedule:core/q/bs_go {k:1,m:4,m1:5,h:2}
execute if score #q.n doom.schedule matches 4.. run return run function doom.schedule:core/q/bs_go {k:0,m:2,m1:3,h:1}
scoreboard players set #q.c doom.schedule 1
function doom.schedule:core/q/bs/0 {c:1}
