"""Build hook: an installed (not editable) bot carries the data pack as `bot/_datapack` and the
translation catalogs (locale/) as `bot/_locale`.

Everything else about the build is in pyproject.toml. `bot.minecraft.installer.bundled_datapack`
looks for the checkout's `datapack/` first (source tree, editable install) and then for
`bot/_datapack`, the copy this hook puts into the wheel; `bot.i18n.catalog_dir` does the same with
`locale/` and `bot/_locale`. The .po files are shipped as they are: the bot compiles them when it
loads them, so there is no compiled file to keep in step.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup  # type: ignore[import-untyped]
from setuptools.command.build_py import build_py  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent
PACK = ROOT / "datapack"
LOCALE = ROOT / "locale"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class BuildPyWithPack(build_py):
    """build_py, then the pack copied into the built `bot` package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's datapack/ directly
        if not (PACK / "pack.mcmeta").is_file():
            raise RuntimeError(f"{PACK} is missing: the wheel would ship without the data pack")
        target = Path(self.build_lib) / "bot" / "_datapack"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(PACK, target, ignore=IGNORED)
        if not (LOCALE / "messages.pot").is_file():
            raise RuntimeError(f"{LOCALE} is missing: the wheel would ship without its languages")
        catalogs = Path(self.build_lib) / "bot" / "_locale"
        if catalogs.exists():
            shutil.rmtree(catalogs)
        shutil.copytree(LOCALE, catalogs, ignore=IGNORED)


setup(cmdclass={"build_py": BuildPyWithPack})
