# Macro {i}: inserts ctx t.new into data queue at index i. Changes: queue.
$data modify storage doom.schedule:data queue insert $(i) from storage doom.schedule:ctx t.new
