"""`python -m bot check`: what the bot would use, and whether each part answers.

For each server: RCON reachable (and the game time), the server software (vanilla, Paper,
Spigot, Fabric...: bot/minecraft/software.py), the pack's version in storage and whether its
objectives and storages are whole (bot/minecraft/pack_health.py), the log
file readable when events come from it, the Minecraft version the commands are checked against
(and whether that had to fall back), `function-permission-level`, and `broadcast-rcon-to-ops`
(which makes every event poll echo to operators and the log). Prints one line per finding;
never a password or token.
"""

from __future__ import annotations

__all__ = ["check_all", "check_discord", "check_server", "find_server_properties"]

import asyncio
import os
from typing import TextIO

import aiohttp
import discord

from bot.config import ServerConfig, Settings
from bot.errors import BotError
from bot.i18n import _
from bot.minecraft.installer import read_pack_version
from bot.minecraft.pack_health import DAMAGE_ADVICE, pack_damage
from bot.minecraft.server_files import find_server_properties
from bot.minecraft.software import detect_software
from bot.services import build_checker, build_rcon, checker_note


async def check_server(settings: Settings, server: ServerConfig, out: TextIO) -> bool:
    ok = True
    print(
        _(
            "server {name}: RCON {host}:{port}, events {source}, world {world}",
            name=repr(server.name),
            host=server.rcon_host,
            port=server.rcon_port,
            source=server.event_source,
            world=server.world_dir or _("(no file access)"),
        ),
        file=out,
    )
    rcon = build_rcon(settings, server)
    try:
        reply = await rcon.command("time query gametime")
        print(_("  RCON: reachable ({reply})", reply=reply.strip()), file=out)
        software = await detect_software(rcon, server.log_path)
        print(
            _(
                "  software: {software}; the pack is reloaded with `{reload}`",
                software=software.describe(),
                reload=software.reload_command,
            ),
            file=out,
        )
        version = await read_pack_version(rcon)
        if version is None:
            ok = False
            print(_("  pack: NOT installed (run `python -m bot install-datapack`)"), file=out)
        else:
            print(_("  pack: doom.schedule {version}", version=version), file=out)
            damage = await pack_damage(rcon)
            if damage:
                ok = False
                print(
                    _(
                        "  pack state: damaged: {problems}. {advice}",
                        problems="; ".join(str(p) for p in damage),
                        advice=DAMAGE_ADVICE,
                    ),
                    file=out,
                )
            else:
                print(_("  pack state: ok (objectives and storages in place)"), file=out)
    except BotError as e:
        ok = False
        print(_("  RCON: NOT reachable: {error}", error=e), file=out)
    finally:
        await rcon.close()

    if server.log_path is None:
        needs_log = server.event_source == "log"
        ok = ok and not needs_log
        print(
            _("  log: not configured but event_source is log")
            if needs_log
            else _("  log: not configured"),
            file=out,
        )
    elif server.log_path.is_file() and os.access(server.log_path, os.R_OK):
        print(_("  log: {path} readable", path=server.log_path), file=out)
    else:
        ok = ok and server.event_source != "log"
        print(_("  log: {path} NOT readable", path=server.log_path), file=out)

    checker, minecraft, props = build_checker(settings, server)
    print(
        _(
            "  Minecraft: {version}; commands checked against the {tree} tree",
            version=minecraft.describe(),
            tree=checker.tree,
        ),
        file=out,
    )
    note = checker_note(minecraft, checker)
    if note is not None:
        print(_("  WARNING: {note}", note=note), file=out)
    properties = props.path
    broadcast = props.broadcast_rcon_to_ops
    if properties is not None:
        print(
            _(
                "  function-permission-level: {level} ({path}); commands needing more are refused",
                level=props.function_permission_level,
                path=properties,
            ),
            file=out,
        )
    else:
        print(
            _(
                "  function-permission-level: {level} (vanilla's default; no server.properties "
                "found)",
                level=props.function_permission_level,
            ),
            file=out,
        )
    if broadcast is None:
        print(
            _(
                "  broadcast-rcon-to-ops: unknown (no server.properties found; vanilla's "
                "default is true, which echoes every RCON event poll to operators)"
            ),
            file=out,
        )
    elif broadcast:
        print(
            _(
                "  broadcast-rcon-to-ops: true in {path}: set it to false if events are "
                "polled over RCON, or every poll is echoed to operators and the log",
                path=properties,
            ),
            file=out,
        )
    else:
        print(_("  broadcast-rcon-to-ops: false ({path})", path=properties), file=out)
    return ok


async def check_discord(
    settings: Settings, out: TextIO, http: discord.http.HTTPClient | None = None
) -> bool:
    """Log in over HTTP only (no gateway) and check /event's permission in each guild."""
    from bot.discord.guildevents.readiness import check_guilds

    assert settings.discord_token is not None
    client = http or discord.http.HTTPClient(asyncio.get_running_loop())
    print("discord:", file=out)
    try:
        me = await client.static_login(settings.discord_token.get_secret_value())
        return await check_guilds(client, dict(me), settings.guild_ids, out)
    except discord.LoginFailure:
        print("  Discord: the token was refused (check DOOM_DISCORD_TOKEN)", file=out)
        return False
    except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
        print(f"  Discord: NOT reachable ({type(exc).__name__})", file=out)
        return False
    finally:
        await client.close()


async def check_all(settings: Settings, out: TextIO) -> int:
    token = _("set") if settings.discord_token is not None else _("not set (console only)")
    print(
        _(
            "config: {n} server(s), data_dir {data_dir}, Discord token {token}, guilds {guilds}, "
            "deny-list {deny}",
            n=len(settings.servers),
            data_dir=settings.data_dir,
            token=token,
            guilds=settings.guild_ids or _("all"),
            deny=", ".join(settings.deny_commands) or _("(empty)"),
        ),
        file=out,
    )
    if settings.allowed_commands is None:
        print(
            _(
                "allow-list: not set, tasks may run any command the deny-list lets through "
                "(DOOM_ALLOWED_COMMANDS is the safe choice for moderator roles)"
            ),
            file=out,
        )
    else:
        print(
            _(
                "allow-list: tasks may run only {allowed}",
                allowed=", ".join(settings.allowed_commands) or _("(nothing)"),
            ),
            file=out,
        )
    results = [await check_server(settings, s, out) for s in settings.servers]
    if settings.discord_token is not None:
        results.append(await check_discord(settings, out))
    ok = all(results)
    print(_("check: all good") if ok else _("check: problems found (see above)"), file=out)
    return 0 if ok else 1
