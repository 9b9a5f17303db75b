# Macro {list,n}: removes the task with serial n from data <list>. Changes: data <list>.
$data remove storage doom.schedule:data $(list)[{n:$(n)}]
