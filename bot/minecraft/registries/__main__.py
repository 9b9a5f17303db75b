"""Write the registry id lists the command check and mcsim read, from PrismarineJS's
minecraft-data (the npm package, kept up to date with every release; `npm pack minecraft-data`
and unpack it):

    python -m bot.minecraft.registries <unpacked>/package/minecraft-data/data

writes bot/minecraft/registries/ids.json.gz (every 1.20.x and 1.21.x release it has) and
mcsim/registries.json.gz (the release mcsim plays, 1.21.11). Effects are read from the
language file's keys: the data's effect names are display names ("BadLuck" is `unluck`)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("ids.json.gz")
MCSIM = Path(__file__).parents[3] / "mcsim" / "registries.json.gz"
MCSIM_VERSION = "1.21.11"
_RELEASE = re.compile(r"^1\.2[01](\.\d+)?$")
# registry -> (minecraft-data's file, the list's key)
FILES = {
    "item": "items",
    "block": "blocks",
    "entity_type": "entities",
    "enchantment": "enchantments",
    "sound_event": "sounds",
    "particle_type": "particles",
    "worldgen/biome": "biomes",
}


def _names(data: Path, version_paths: dict[str, str], registry: str) -> list[str]:
    if registry == "mob_effect":
        lang = json.loads((data / version_paths["language"] / "language.json").read_text())
        return sorted(
            k.split(".", 2)[2] for k in lang if re.fullmatch(r"effect\.minecraft\.\w+", k)
        )
    rows = json.loads(
        (data / version_paths[FILES[registry]] / f"{FILES[registry]}.json").read_text()
    )
    return sorted({str(r["name"]) for r in rows})


def build(data: Path) -> dict[str, Any]:
    paths = json.loads((data / "dataPaths.json").read_text())["pc"]
    sets: dict[str, list[str]] = {}
    versions: dict[str, dict[str, str]] = {}
    for version, version_paths in paths.items():
        if not _RELEASE.match(version):
            continue
        versions[version] = {}
        for registry in [*FILES, "mob_effect"]:
            if FILES.get(registry, "language") not in version_paths:
                continue  # not in the data for this release: its ids are not checked
            names = _names(data, version_paths, registry)
            key = hashlib.sha1("\n".join(names).encode()).hexdigest()[:12]
            sets[key] = names
            versions[version][registry] = key
    return {"sets": sets, "versions": versions}


def main() -> None:
    data = Path(sys.argv[1])
    built = build(data)
    OUT.write_bytes(gzip.compress(json.dumps(built, separators=(",", ":")).encode(), mtime=0))
    own = built["versions"][MCSIM_VERSION]
    mcsim = {registry: built["sets"][key] for registry, key in own.items()}
    MCSIM.write_bytes(gzip.compress(json.dumps(mcsim, separators=(",", ":")).encode(), mtime=0))
    print(f"{OUT}: {len(built['versions'])} releases; {MCSIM}: {MCSIM_VERSION}")


if __name__ == "__main__":
    main()
