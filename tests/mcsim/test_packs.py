"""Pack discovery, pack.mcmeta checks, the 1.21 layout, tags, reload and `datapack`."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mcsim.packs import PackError, pack_range
from mcsim.server import Server
from tests.mcsim.conftest import PACK_META, WritePack


@pytest.mark.parametrize(
    "pack",
    [
        {"pack_format": 48, "supported_formats": [48, 94], "min_format": 48, "max_format": 94},
        {"min_format": 94, "max_format": 94, "description": "x"},
        {"min_format": [88, 0], "max_format": [94, 1]},
        {"pack_format": 48, "supported_formats": [48, 81], "min_format": 48, "max_format": 94},
        {"min_format": 88, "max_format": 94, "pack_format": 90},
    ],
)
def test_mcmeta_accepted_and_compatible(pack: dict[str, object]) -> None:
    pack.setdefault("description", "d")
    lo, hi = pack_range({"pack": pack})
    assert lo <= (94, 1) <= hi


@pytest.mark.parametrize(
    ("pack", "span"),
    [
        ({"pack_format": 48}, ((48, 0), (48, 0))),
        ({"pack_format": 71, "supported_formats": [48, 80]}, ((48, 0), (80, 0))),
        (
            {"pack_format": 61, "supported_formats": {"min_inclusive": 57, "max_inclusive": 61}},
            ((57, 0), (61, 0)),
        ),
    ],
)
def test_older_formats_parse_to_their_own_range(
    pack: dict[str, object], span: tuple[tuple[int, int], tuple[int, int]]
) -> None:
    # resource/PackVersion.java: a lone pack_format up to 81 is that format; supported_formats
    # up to 81 is that span (minor 0 at both ends). Such packs still load (see below).
    pack.setdefault("description", "d")
    assert pack_range({"pack": pack}) == span


@pytest.mark.parametrize(
    "pack",
    [
        {"pack_format": 94},  # 1.21.9+ formats need min_format/max_format
        {"pack_format": 48, "supported_formats": [48, 94]},
        {"min_format": 48},  # both or neither
        {"min_format": 50, "max_format": 49},
        {"pack_format": "48"},
        {"min_format": 48, "max_format": 94},  # older servers need pack_format too
        # read in resource/PackVersion.java (1.21.11), Format.validate / validateVersions:
        {"pack_format": 48, "min_format": 48, "max_format": [94, 1]},  # no supported_formats
        {"min_format": 94, "max_format": 94, "supported_formats": [94, 94]},  # deprecated key
        {"min_format": 88, "max_format": 94, "pack_format": 80},  # main format outside
        {"pack_format": 48, "supported_formats": [48, 60], "min_format": 48, "max_format": 94},
        {"pack_format": 10, "supported_formats": [10, 20]},  # multi-version below 15
        {"min_format": -1, "max_format": 94},
        {"description": "d"},  # no format at all
    ],
)
def test_mcmeta_refused(pack: dict[str, object]) -> None:
    pack.setdefault("description", "d")
    with pytest.raises(PackError):
        pack_range({"pack": pack})


@pytest.mark.parametrize("fmt", [48, 57, 71, 80])
def test_pack_made_for_an_older_version_is_enabled_at_start_up(  # type: ignore[no-untyped-def]
    make_server, pack: WritePack, fmt: int
) -> None:
    # Vanilla notes, "Data pack format": a dedicated server enables every new pack it finds,
    # whatever its pack_format; a 1.21.0 pack (48) runs on 1.21.11 (94.1).
    pack({"t:f": "return 7"}, meta={"pack": {"description": "old", "pack_format": fmt}})
    srv: Server = make_server()
    assert srv.run("function t:f").result == 7
    log = srv.log_path.read_text()
    assert "Found new data pack file/testpack, loading it automatically" in log
    assert "not compatible" not in log
    assert "[file/testpack (world)]" in srv.run("datapack list enabled").feedback[0]


def test_a_pack_that_fails_to_parse_is_still_kept_out(  # type: ignore[no-untyped-def]
    make_server, world: Path
) -> None:
    root = world / "datapacks" / "broken"
    (root / "data" / "t" / "function").mkdir(parents=True)
    (root / "pack.mcmeta").write_text("{not json", encoding="utf-8")
    (root / "data" / "t" / "function" / "f.mcfunction").write_text("return 1", encoding="utf-8")
    srv: Server = make_server()
    assert srv.run("function t:f").feedback == ["Unknown function t:f"]
    assert "Failed to load pack file/broken" in srv.log_path.read_text()


def test_zip_pack_and_tags(make_server, world: Path) -> None:  # type: ignore[no-untyped-def]
    (world / "datapacks").mkdir(parents=True)
    with zipfile.ZipFile(world / "datapacks" / "z.zip", "w") as zf:
        zf.writestr("pack.mcmeta", json.dumps(PACK_META))
        zf.writestr("data/z/function/a.mcfunction", "return 1")
        zf.writestr("data/z/function/sub/b.mcfunction", "return 2")
        zf.writestr("data/z/tags/function/all.json", json.dumps({"values": ["z:a", "#z:more"]}))
        zf.writestr("data/z/tags/function/more.json", json.dumps({"values": ["z:sub/b"]}))
        # the pre-1.21 plural folder is not read
        zf.writestr("data/z/functions/old.mcfunction", "return 3")
    srv: Server = make_server()
    assert srv.run("function z:sub/b").result == 2
    assert srv.run("function #z:all").feedback[0] == "Running functions z:a, z:sub/b"
    assert srv.run("function z:old").feedback == ["Unknown function z:old"]
    assert srv.run("function #z:none").feedback == ["Unknown function tag 'z:none'"]


def test_tag_with_missing_required_entry_is_dropped(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:a": "return 1"}, tags={"t:broken": ["t:a", "t:missing"]})
    srv: Server = make_server()
    assert srv.run("function #t:broken").feedback == ["Unknown function tag 't:broken'"]


def test_reload_rereads_and_reruns_load(server: Server, pack: WritePack) -> None:
    pack(
        {"t:load": "scoreboard objectives add o dummy\nscoreboard players add #loads o 1"},
        tags={"minecraft:load": ["t:load"]},
    )
    out = server.run("reload")
    assert out.feedback == ["Reloading!"]
    assert server.score("#loads", "o") == 1
    pack({"t:new": "return 5"})
    server.run("reload")
    assert server.score("#loads", "o") == 2
    assert server.run("function t:new").result == 5


def test_datapack_list_enable_disable(server: Server, pack: WritePack, world: Path) -> None:
    pack({"t:f": "return 1"})
    server.run("reload")
    assert server.run("datapack list enabled").feedback == [
        "There are 2 data pack(s) enabled: [vanilla (built-in)], [file/testpack (world)]"
    ]
    out = server.run('datapack disable "file/testpack"')
    assert out.feedback == ["Disabling data pack [file/testpack (world)]"]
    assert server.run("function t:f").feedback == ["Unknown function t:f"]
    assert server.run("datapack list available").feedback == [
        "There are 1 data pack(s) available: [file/testpack (world)]"
    ]
    assert server.run('datapack disable "file/testpack"').feedback == [
        "Pack 'file/testpack' is not enabled!"
    ]
    assert server.run('datapack enable "file/nope"').feedback == ["Unknown data pack 'file/nope'"]
    server.save()
    from mcsim.nbt import read_nbt_file

    level = read_nbt_file(world / "level.dat")
    assert [str(p) for p in level["Data"]["DataPacks"]["Disabled"]] == ["file/testpack"]
    assert server.run('datapack enable "file/testpack"').feedback == [
        "Enabling data pack [file/testpack (world)]"
    ]
    assert server.run("function t:f").result == 1
    assert server.run('datapack enable "file/testpack"').feedback == [
        "Pack 'file/testpack' is already enabled!"
    ]


def test_disabled_pack_stays_disabled_after_restart(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:f": "return 1"})
    srv: Server = make_server()
    srv.run('datapack disable "file/testpack"')
    srv.stop()
    srv.start()
    assert srv.run("function t:f").feedback == ["Unknown function t:f"]
