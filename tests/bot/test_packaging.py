"""`pip install .` (not editable) ships the data pack: a wheel built from a copy of the checkout
holds every pack file under bot/_datapack, and the installed bot finds it there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bot.minecraft.installer import pack_version_of

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
PACKAGES = ("bot", "cogs", "console", "mcsim", "datapack", "web", "locale")
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


def pack_files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
    }


@pytest.mark.slow
def test_the_wheel_ships_the_pack_and_the_installed_bot_finds_it(tmp_path: Path) -> None:
    # a copy, so the build writes its build/ and egg-info there and not into the checkout
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        shutil.copy2(REPO / name, src / name)
    for name in PACKAGES:
        shutil.copytree(REPO / name, src / name, ignore=JUNK)
    dist = tmp_path / "dist"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(src),
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(dist),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    [wheel] = dist.glob("doom_schedule-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        shipped = {
            n.removeprefix("bot/_datapack/")
            for n in zf.namelist()
            if n.startswith("bot/_datapack/")
        }
        # every face travels with it: the cogs, the console, the dashboard
        assert {"cogs/admin.py", "console/session.py", "web/app.py"} <= set(zf.namelist())
        # the dashboard's templates and static files travel with it
        assert {"web/templates/base.html", "web/static/app.css", "web/static/app.js"} <= set(
            zf.namelist()
        )
        # the registry ids the command check and mcsim read
        assert {"bot/minecraft/registries/ids.json.gz", "mcsim/registries.json.gz"} <= set(
            zf.namelist()
        )
        zf.extractall(tmp_path / "site")  # what `pip install` puts in site-packages
    assert shipped == pack_files(REPO / "datapack")
    assert {"pack.mcmeta", "data/doom.schedule/function/core/tick.mcfunction"} <= shipped

    site = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)  # before the checkout's editable install on sys.path
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import bot.minecraft.installer as i; print(i.__file__); "
            "p = i.bundled_datapack(); print(p); print(i.pack_version_of(p))",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0, found.stderr
    module, pack, version = found.stdout.split()
    assert Path(module).is_relative_to(site)
    assert Path(pack) == site / "bot" / "_datapack"
    assert version == pack_version_of(REPO / "datapack")

    # the catalogs ship too, and the installed bot speaks Chinese from them
    assert "bot/_locale/zh_CN/LC_MESSAGES/messages.po" in zf.namelist()
    spoken = subprocess.run(
        [
            sys.executable,
            "-c",
            "from bot import i18n; print(i18n.catalog_dir()); "
            "i18n.set_locale('zh-CN'); print(i18n._('No Minecraft server is configured.'))",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert spoken.returncode == 0, spoken.stderr
    where, said = spoken.stdout.splitlines()
    assert Path(where) == site / "bot" / "_locale"
    assert said == "尚未配置任何 Minecraft 服务器。"
