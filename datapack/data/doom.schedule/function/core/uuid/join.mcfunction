# Macro {a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p}: ctx u.s = the hex pairs joined as 8-4-4-4-12. Changes: ctx u.s.
$data modify storage doom.schedule:ctx u.s set value "$(a)$(b)$(c)$(d)-$(e)$(f)-$(g)$(h)-$(i)$(j)-$(k)$(l)$(m)$(n)$(o)$(p)"
