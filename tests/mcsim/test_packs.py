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
        {"pack_format": 48, "min_format": 48, "max_format": [94, 1]},
    ],
)
def test_mcmeta_accepted_and_compatible(pack: dict[str, object]) -> None:
    pack.setdefault("description", "d")
    lo, hi = pack_range({"pack": pack})
    assert lo <= (94, 1) <= hi


@pytest.mark.parametrize(
    "pack",
    [
        {"pack_format": 94},  # 1.21.9+ formats need min_format/max_format
        {"pack_format": 48, "supported_formats": [48, 94]},
        {"min_format": 48},  # both or neither
        {"min_format": 50, "max_format": 49},
        {"pack_format": "48"},
        {"min_format": 48, "max_format": 94},  # older servers need pack_format too
    ],
)
def test_mcmeta_refused(pack: dict[str, object]) -> None:
    pack.setdefault("description", "d")
    with pytest.raises(PackError):
        pack_range({"pack": pack})


def test_old_only_pack_is_not_enabled(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:f": "say hi"}, meta={"pack": {"description": "old", "pack_format": 48}})
    srv: Server = make_server()
    assert srv.run("function t:f").feedback == ["Unknown function t:f"]
    assert "not compatible" in srv.log_path.read_text()


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
