"""mcsim: a stand-in Minecraft Java 1.21 server that runs data packs, speaks RCON, writes the log.

Public entry point: `mcsim.server.Server` (see mcsim/README.md).
"""

from __future__ import annotations

__all__: list[str] = []
