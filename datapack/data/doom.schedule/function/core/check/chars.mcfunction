# Macro {id}: an objective name is read as an unquoted string, whose characters are exactly
# [A-Za-z0-9_.+-]: any other character makes the line fail to parse, so this function fails to
# instantiate and the caller's `function` fails. The objective sits mid-command, so a parser that
# took `#` for the start of a comment (mecha does) still sees an incomplete command.
# The line itself changes nothing (an unknown objective only fails the line). Returns 1.
$execute if score #chk $(id) matches 0
return 1
