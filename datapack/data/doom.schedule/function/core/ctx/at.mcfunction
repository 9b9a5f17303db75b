# Macro {dimension,ix,iy,iz,fx,fy,fz,yaw,pitch}: ctx t.new.at = the execute prefix that restores the
# context (see core/ctx/probe: Ints plus Doubles in [1, 2), so no argument prints in E-notation).
$data modify storage doom.schedule:ctx t.new.at set value "in $(dimension) positioned $(ix).0 $(iy).0 $(iz).0 positioned ~$(fx) ~$(fy) ~$(fz) rotated $(yaw) $(pitch)"
