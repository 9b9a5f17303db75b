# Starts the binary search for the insertion index of #q.d in a queue of #q.n >= 2 tasks whose
# first is due at or before #q.d and whose last after it: the first stride is the largest power
# of two <= #q.n - 1, so the steps cost O(log n). Changes: see core/q/bs/*.
execute if score #q.n doom.schedule matches 1048577.. run return run function doom.schedule:core/q/bs_go {k:20,c:1048576}
execute if score #q.n doom.schedule matches 524289.. run return run function doom.schedule:core/q/bs_go {k:19,c:524288}
execute if score #q.n doom.schedule matches 262145.. run return run function doom.schedule:core/q/bs_go {k:18,c:262144}
execute if score #q.n doom.schedule matches 131073.. run return run function doom.schedule:core/q/bs_go {k:17,c:131072}
execute if score #q.n doom.schedule matches 65537.. run return run function doom.schedule:core/q/bs_go {k:16,c:65536}
execute if score #q.n doom.schedule matches 32769.. run return run function doom.schedule:core/q/bs_go {k:15,c:32768}
execute if score #q.n doom.schedule matches 16385.. run return run function doom.schedule:core/q/bs_go {k:14,c:16384}
execute if score #q.n doom.schedule matches 8193.. run return run function doom.schedule:core/q/bs_go {k:13,c:8192}
execute if score #q.n doom.schedule matches 4097.. run return run function doom.schedule:core/q/bs_go {k:12,c:4096}
execute if score #q.n doom.schedule matches 2049.. run return run function doom.schedule:core/q/bs_go {k:11,c:2048}
execute if score #q.n doom.schedule matches 1025.. run return run function doom.schedule:core/q/bs_go {k:10,c:1024}
execute if score #q.n doom.schedule matches 513.. run return run function doom.schedule:core/q/bs_go {k:9,c:512}
execute if score #q.n doom.schedule matches 257.. run return run function doom.schedule:core/q/bs_go {k:8,c:256}
execute if score #q.n doom.schedule matches 129.. run return run function doom.schedule:core/q/bs_go {k:7,c:128}
execute if score #q.n doom.schedule matches 65.. run return run function doom.schedule:core/q/bs_go {k:6,c:64}
execute if score #q.n doom.schedule matches 33.. run return run function doom.schedule:core/q/bs_go {k:5,c:32}
execute if score #q.n doom.schedule matches 17.. run return run function doom.schedule:core/q/bs_go {k:4,c:16}
execute if score #q.n doom.schedule matches 9.. run return run function doom.schedule:core/q/bs_go {k:3,c:8}
execute if score #q.n doom.schedule matches 5.. run return run function doom.schedule:core/q/bs_go {k:2,c:4}
execute if score #q.n doom.schedule matches 3.. run return run function doom.schedule:core/q/bs_go {k:1,c:2}
function doom.schedule:core/q/bs_go {k:0,c:1}
