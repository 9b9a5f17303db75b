"""A task without an entity runs at its saved place even where vanilla's macro substitution would
print the coordinates in E-notation (a Double prints as 1.2345678E7 from 10^7 up and as 1.0E-4
below 10^-3, and `positioned` cannot parse that)."""

from __future__ import annotations

import math
import re
from decimal import Decimal

from tests.datapack.dpharness import PACK_DIR, Pack, snbt
from mecha import Mecha

SPOT = 'summon minecraft:marker ~ ~ ~ {Tags:["spot"]}'
AT_TEMPLATE = PACK_DIR / "data" / "doom.schedule" / "function" / "core" / "ctx" / "at.mcfunction"


def java_text(value: object) -> str:
    """A macro argument as vanilla substitutes it: Java's Double/Float.toString for decimals."""
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e7:
            text = repr(value)
            return text if "." in text or "e" in text else text + ".0"
        sign, digits, exp = Decimal(repr(value)).normalize().as_tuple()
        assert isinstance(exp, int)
        text = "".join(map(str, digits))
        mantissa = text[0] + "." + (text[1:] or "0")
        return f"{'-' if sign else ''}{mantissa}E{len(text) + exp - 1}"
    return str(value)


def spot(pack: Pack) -> list[str]:
    return pack.run("data get entity @e[tag=spot,limit=1] Pos").feedback


def submit_at(pack: Pack, where: str) -> None:
    task = snbt({"run": SPOT, "time": 1, "id": "far"})
    pack.run(f"data modify storage doom.schedule:in task set value {task}")
    assert pack.run(f"execute {where} run function doom.schedule:submit").success


def test_java_text_is_e_notation_where_java_uses_it() -> None:
    assert java_text(12345678.5) == "1.23456785E7" and java_text(1.0e-4) == "1.0E-4"
    assert java_text(64.0) == "64.0" and java_text(1.5) == "1.5"


def test_a_console_task_at_x_12345678_5_runs_at_that_exact_place(pack: Pack) -> None:
    submit_at(pack, "positioned 12345678.5 64.0 -0.0001 rotated 0.00001 -12.5")
    task = pack.queue()[0]
    assert task["pos"] == [12345678.5, 64.0, -0.0001]
    # every argument core/ctx/at substituted prints the same in vanilla: no E-notation
    args = pack.server.storage("doom.schedule:ctx")["p"]
    assert isinstance(args, dict)
    template = AT_TEMPLATE.read_text().splitlines()[-1][1:]
    line = re.sub(r"\$\((\w+)\)", lambda m: java_text(args[m.group(1)]), template)
    assert "E" not in line, line
    Mecha(version="1.21").parse(line, using="command")
    numbers = re.compile(r"-?\d+(?:\.\d+)?")
    stored = [float(v) for v in numbers.findall(task["at"])]
    assert stored == [float(v) for v in numbers.findall(line.split('"')[1])]
    pack.step(1)
    assert pack.events() == []  # not `invalid`
    (reply,) = spot(pack)
    x, y, z = (float(v.rstrip("d")) for v in reply.split(": ")[1].strip("[]").split(", "))
    assert (x, y) == (12345678.5, 64.0)  # exact: the split is exact for Int + [1, 2)
    assert math.isclose(z, -0.0001, rel_tol=1e-9)  # 2 - 1.9999: rounding in the 16th digit


def test_negative_and_whole_coordinates_and_other_dimensions(pack: Pack) -> None:
    submit_at(pack, "in minecraft:the_nether positioned -29999999.25 -64.0 0.0")
    pack.step(1)
    found = pack.run("execute in minecraft:the_nether run data get entity @e[tag=spot,limit=1] Pos")
    assert found.feedback == [
        "Marker has the following entity data: [-2.999999925E7d, -64.0d, 0.0d]"
    ]
    assert pack.run("execute in minecraft:the_nether if entity @e[tag=spot,distance=..0.001]")


def test_the_probe_marker_is_gone_and_rotation_is_kept_to_a_thousandth(pack: Pack) -> None:
    submit_at(pack, "positioned 1.0 2.0 3.0 rotated 123.4567 -45.5")
    assert pack.run("execute if entity @e[tag=doom.schedule.probe]").result == 0
    at = pack.queue()[0]["at"]
    yaw, pitch = (float(v) for v in at.split(" rotated ")[1].split())
    assert math.isclose(yaw, 123.456, abs_tol=1e-4) and math.isclose(pitch, -45.5, abs_tol=1e-4)


def test_a_caller_at_the_same_place_again_gets_the_same_prefix_with_its_own_rotation(
    pack: Pack,
) -> None:
    # core/ctx/probe reuses the Int/Double split for a position seen last time (ctx p.pos); a
    # new rotation or dimension must still show, and another place must not reuse a stale split
    places = [
        "positioned 12345678.5 64.0 -0.0001 rotated 10.0 5.0",
        "positioned 12345678.5 64.0 -0.0001 rotated -90.25 12.5",
        "in minecraft:the_end positioned 12345678.5 64.0 -0.0001",
        "positioned -7.75 70.0 3.5",
        "positioned 12345678.5 64.0 -0.0001 rotated 10.0 5.0",
    ]
    for where in places:
        submit_at(pack, where)
    ats = [task["at"] for task in pack.queue()]
    numbers = re.compile(r"-?\d+(?:\.\d+)?")
    split = [[float(v) for v in numbers.findall(at)] for at in ats]
    first = [12345677.0, 63.0, -2.0, 1.5, 1.0]
    assert split[0][:5] == first and split[0][6:] == [10.0, 5.0]
    assert split[1][:5] == first and split[1][6:] == [-90.25, 12.5]
    assert split[2][:5] == first and ats[2].startswith("in minecraft:the_end ")
    assert split[3][:6] == [-9.0, 69.0, 2.0, 1.25, 1.0, 1.5]
    assert ats[0].startswith("in minecraft:overworld ") and ats[1].startswith("in minecraft:over")
    assert ats[4] == ats[0]
    assert pack.run("execute if entity @e[tag=doom.schedule.probe]").result == 0
    pack.step(1)
    assert pack.events() == []
    assert pack.run("execute in minecraft:the_end if entity @e[tag=spot,distance=0..]").result == 1
    assert pack.run("execute if entity @e[tag=spot,distance=0..]").result == 4
    assert pack.run("execute positioned -7.75 70.0 3.5 if entity @e[tag=spot,distance=..0.001]")


def test_where_no_marker_can_be_summoned_the_task_runs_at_the_origin_and_the_cache_is_dropped(
    pack: Pack,
) -> None:
    # summon refuses a place beyond 30,000,000 (vanilla's spawnable bounds): core/ctx/origin
    submit_at(pack, "positioned 5.5 70.0 5.5")
    submit_at(pack, "positioned 40000000.0 64.0 0.0 rotated 30.0 0.0")
    submit_at(pack, "positioned 5.5 70.0 5.5 rotated 45.0 0.0")  # same place again after origin
    first, far, again = pack.queue()
    assert far["pos"] == [0.0, 0.0, 0.0] and far["rot"] == [0.0, 0.0]
    numbers = re.compile(r"-?\d+(?:\.\d+)?")
    assert [float(v) for v in numbers.findall(far["at"])] == [-1, -1, -1, 1, 1, 1, 0, 0]
    assert again["pos"] == first["pos"] == [5.5, 70.0, 5.5]
    assert again["at"].split(" rotated ")[0] == first["at"].split(" rotated ")[0]
    assert [float(v) for v in again["at"].split(" rotated ")[1].split()] == [45.0, 0.0]
    assert pack.run("execute if entity @e[tag=doom.schedule.probe]").result == 0
