# Macro {id}: an objective name is read as an unquoted string, whose characters are exactly
# [A-Za-z0-9_.+-]: any other character makes the line fail to parse, so this function fails to
# instantiate and the caller's `function` fails. The line itself changes nothing. Returns 1.
$scoreboard players get #chk $(id)
return 1
