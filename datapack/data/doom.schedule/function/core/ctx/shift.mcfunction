# Macro {nx,ny,nz}: moves @s (the probe) to the caller's position plus (nx, ny, nz) and turns it
# to the caller's rotation (`~` is relative to the caller's context, not to @s).
$tp @s ~$(nx) ~$(ny) ~$(nz) ~ ~
