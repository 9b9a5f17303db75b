# Macro {b0,b1,b2,b3,b4,b5,b6,b7,b8,b9,b10,b11,b12,b13,b14,b15}:
# looks up the 16 bytes' hex pairs into ctx u.x.a..p and joins them. Changes: ctx u.x, u.s.
$data modify storage doom.schedule:ctx u.x.a set from storage doom.schedule:const hex[$(b0)]
$data modify storage doom.schedule:ctx u.x.b set from storage doom.schedule:const hex[$(b1)]
$data modify storage doom.schedule:ctx u.x.c set from storage doom.schedule:const hex[$(b2)]
$data modify storage doom.schedule:ctx u.x.d set from storage doom.schedule:const hex[$(b3)]
$data modify storage doom.schedule:ctx u.x.e set from storage doom.schedule:const hex[$(b4)]
$data modify storage doom.schedule:ctx u.x.f set from storage doom.schedule:const hex[$(b5)]
$data modify storage doom.schedule:ctx u.x.g set from storage doom.schedule:const hex[$(b6)]
$data modify storage doom.schedule:ctx u.x.h set from storage doom.schedule:const hex[$(b7)]
$data modify storage doom.schedule:ctx u.x.i set from storage doom.schedule:const hex[$(b8)]
$data modify storage doom.schedule:ctx u.x.j set from storage doom.schedule:const hex[$(b9)]
$data modify storage doom.schedule:ctx u.x.k set from storage doom.schedule:const hex[$(b10)]
$data modify storage doom.schedule:ctx u.x.l set from storage doom.schedule:const hex[$(b11)]
$data modify storage doom.schedule:ctx u.x.m set from storage doom.schedule:const hex[$(b12)]
$data modify storage doom.schedule:ctx u.x.n set from storage doom.schedule:const hex[$(b13)]
$data modify storage doom.schedule:ctx u.x.o set from storage doom.schedule:const hex[$(b14)]
$data modify storage doom.schedule:ctx u.x.p set from storage doom.schedule:const hex[$(b15)]
function doom.schedule:core/uuid/join with storage doom.schedule:ctx u.x
