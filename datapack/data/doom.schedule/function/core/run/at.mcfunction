# Macro {at}: runs ctx x.cur as the server at the saved dimension, position and rotation
# (`at` = "in <dim> positioned <x> <y> <z> rotated <yaw> <pitch>", built at scheduling).
$execute $(at) run function doom.schedule:core/run/call with storage doom.schedule:ctx x.cur
