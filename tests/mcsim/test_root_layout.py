"""`Server(root=...)` and `python -m mcsim --root`: vanilla's server folder, the world inside it.

The root holds server.properties, logs/ and ops.json; the world is the folder named by
`level-name` (default `world`) and holds level.dat, datapacks/, data/ and playerdata/.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

from mcsim.entities import offline_uuid
from mcsim.server import Server
from tests.mcsim.conftest import write_pack


def test_root_layout_puts_each_file_where_vanilla_does(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    write_pack(
        root / "world",
        {"t:init": "scoreboard objectives add o dummy"},
        tags={"minecraft:load": ["t:init"]},
    )
    srv = Server(root=root, frozen=True)
    assert (srv.root, srv.world) == (root, root / "world")
    assert srv.properties_path == root / "server.properties"
    assert srv.log_path == root / "logs" / "latest.log"
    srv.start()
    try:
        srv.run("data modify storage t:s v set value 1")
        srv.run("op Alex")
        srv.join("Alex")
        srv.run("save-all")
    finally:
        srv.stop()
    assert (root / "server.properties").is_file()
    assert (root / "ops.json").is_file()
    assert "Made Alex a server operator" in (root / "logs" / "latest.log").read_text()
    world = root / "world"
    assert (world / "level.dat").is_file()
    assert (world / "data" / "command_storage_t.dat").is_file()
    assert (world / "playerdata" / f"{offline_uuid('Alex')}.dat").is_file()
    assert "Found new data pack file/testpack" in srv.log_path.read_text()
    # nothing of the server's own lands in the world folder
    for name in ("server.properties", "logs", "ops.json"):
        assert not (world / name).exists(), name


def test_level_name_picks_the_world_folder_and_a_restart_rolls_the_roots_log(
    tmp_path: Path,
) -> None:
    root = tmp_path / "srv"
    root.mkdir()
    (root / "server.properties").write_text("level-name=survival\n", encoding="utf-8")
    with Server(root=root, frozen=True) as srv:
        assert srv.world == root / "survival"
        srv.run("scoreboard objectives add o dummy")
        srv.run("scoreboard players set #a o 7")
    assert (root / "survival" / "level.dat").is_file()
    assert not (root / "world").exists()
    with Server(root=root, frozen=True) as again:
        assert again.score("#a", "o") == 7
    archives = sorted((root / "logs").glob("*.log.gz"))
    assert len(archives) == 1
    assert 'Preparing level "survival"' in gzip.decompress(archives[0].read_bytes()).decode()


def test_world_keeps_mcsims_compact_layout(tmp_path: Path) -> None:
    world = tmp_path / "w"
    with Server(world, frozen=True) as srv:
        assert (srv.root, srv.world) == (world, world)
        srv.run("op Alex")
    for name in ("server.properties", "level.dat", "ops.json", "logs/latest.log"):
        assert (world / name).exists(), name


def test_python_m_mcsim_root_starts_in_the_vanilla_layout(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcsim", "--root", str(root), "--frozen"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert str(root / "world") in first and str(root / "logs" / "latest.log") in first
        assert (root / "world" / "level.dat").is_file()
        assert (root / "server.properties").is_file()
    finally:
        proc.terminate()
        proc.wait(20)
    assert "Stopping server" in (root / "logs" / "latest.log").read_text()
