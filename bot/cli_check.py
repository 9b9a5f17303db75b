"""`python -m bot check`: what the bot would use, and whether each part answers.

For each server: RCON reachable (and the game time), the server software (vanilla, Paper,
Spigot, Fabric...: bot/minecraft/software.py), the pack's version in storage, the log
file readable when events come from it, the Minecraft version the commands are checked against
(and whether that had to fall back), `function-permission-level`, and `broadcast-rcon-to-ops`
(which makes every event poll echo to operators and the log). Prints one line per finding;
never a password or token.
"""

from __future__ import annotations

__all__ = ["check_all", "check_server", "find_server_properties"]

import os
from typing import TextIO

from bot.config import ServerConfig, Settings
from bot.errors import BotError
from bot.minecraft.installer import read_pack_version
from bot.minecraft.server_files import find_server_properties
from bot.minecraft.software import detect_software
from bot.services import build_checker, build_rcon, checker_note


async def check_server(settings: Settings, server: ServerConfig, out: TextIO) -> bool:
    ok = True
    print(
        f"server {server.name!r}: RCON {server.rcon_host}:{server.rcon_port}, "
        f"events {server.event_source}, world {server.world_dir or '(no file access)'}",
        file=out,
    )
    rcon = build_rcon(settings, server)
    try:
        reply = await rcon.command("time query gametime")
        print(f"  RCON: reachable ({reply.strip()})", file=out)
        software = await detect_software(rcon, server.log_path)
        print(
            f"  software: {software.describe()}; the pack is reloaded with "
            f"`{software.reload_command}`",
            file=out,
        )
        version = await read_pack_version(rcon)
        if version is None:
            ok = False
            print("  pack: NOT installed (run `python -m bot install-datapack`)", file=out)
        else:
            print(f"  pack: doom.schedule {version}", file=out)
    except BotError as e:
        ok = False
        print(f"  RCON: NOT reachable: {e}", file=out)
    finally:
        await rcon.close()

    if server.log_path is None:
        needs_log = server.event_source == "log"
        ok = ok and not needs_log
        print("  log: not configured" + (" but event_source is log" if needs_log else ""), file=out)
    elif server.log_path.is_file() and os.access(server.log_path, os.R_OK):
        print(f"  log: {server.log_path} readable", file=out)
    else:
        ok = ok and server.event_source != "log"
        print(f"  log: {server.log_path} NOT readable", file=out)

    checker, minecraft, props = build_checker(settings, server)
    print(
        f"  Minecraft: {minecraft.describe()}; commands checked against the {checker.tree} tree",
        file=out,
    )
    note = checker_note(minecraft, checker)
    if note is not None:
        print(f"  WARNING: {note}", file=out)
    properties = props.path
    broadcast = props.broadcast_rcon_to_ops
    if properties is not None:
        print(
            f"  function-permission-level: {props.function_permission_level} ({properties}); "
            "commands needing more are refused",
            file=out,
        )
    else:
        print(
            f"  function-permission-level: {props.function_permission_level} (vanilla's "
            "default; no server.properties found)",
            file=out,
        )
    if broadcast is None:
        print(
            "  broadcast-rcon-to-ops: unknown (no server.properties found; vanilla's default is "
            "true, which echoes every RCON event poll to operators)",
            file=out,
        )
    elif broadcast:
        print(
            f"  broadcast-rcon-to-ops: true in {properties}: set it to false if events are "
            "polled over RCON, or every poll is echoed to operators and the log",
            file=out,
        )
    else:
        print(f"  broadcast-rcon-to-ops: false ({properties})", file=out)
    return ok


async def check_all(settings: Settings, out: TextIO) -> int:
    token = "set" if settings.discord_token is not None else "not set (console only)"
    print(
        f"config: {len(settings.servers)} server(s), data_dir {settings.data_dir}, "
        f"Discord token {token}, guilds {settings.guild_ids or 'all'}, "
        f"deny-list {', '.join(settings.deny_commands) or '(empty)'}",
        file=out,
    )
    results = [await check_server(settings, s, out) for s in settings.servers]
    ok = all(results)
    print("check: all good" if ok else "check: problems found (see above)", file=out)
    return 0 if ok else 1
