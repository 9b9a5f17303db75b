# Macro {k,c}: starts the search at step k (stride 2^k) with candidate index c (= 2^k).
# Changes: #q.c, then see core/q/bs/<k>.
$scoreboard players set #q.c doom.schedule $(c)
$function doom.schedule:core/q/bs/$(k) {c:$(c)}
