"""Permission levels of the command tree, as brigadier applies them while parsing.

A node whose `requires(...)` the source's level does not meet is invisible to the parser: the
line fails to parse right where that node would start. Functions are parsed (at load, macro
lines at instantiation) by a source at `function-permission-level` (FunctionLoader,
Macro.VariableLine), so a function holding `stop` does not load at the default level 2;
console and RCON parse at level 4. `execute as` never changes the level.

Levels read from the 1.21.11 decompile (duollectis/minecraft-decompiled-1.21.11,
server/command/*Command.java and server/dedicated/command/*Command.java):
`requires(CommandManager.requirePermissionLevel(X_CHECK))` with MODERATORS 1, GAMEMASTERS 2,
ADMINS 3, OWNERS 4; no `requires` = 0. Every root not listed needs GAMEMASTERS (2).
"""

from __future__ import annotations

from mecha.ast import AstCommand

__all__ = ["DEFAULT_LEVEL", "NODE_LEVELS", "ROOT_LEVELS", "Gate", "clamp_level", "command_gates"]

DEFAULT_LEVEL = 2

# Roots whose requirement is not GAMEMASTERS. Aliases (tell/w, tm) redirect to these nodes.
ROOT_LEVELS: dict[str, int] = {
    # no requires(): HelpCommand, ListCommand, MeCommand, MessageCommand, TeamMsgCommand,
    # TriggerCommand, RandomCommand (value/roll; see NODE_LEVELS)
    "help": 0,
    "list": 0,
    "me": 0,
    "msg": 0,
    "tell": 0,
    "w": 0,
    "teammsg": 0,
    "tm": 0,
    "trigger": 0,
    "random": 0,
    # ADMINS_CHECK: TickCommand, DebugCommand, KickCommand, dedicated Ban/BanIp/BanList/DeOp/
    # Op/Pardon/PardonIp/SetIdleTimeout/Transfer/Whitelist
    "tick": 3,
    "debug": 3,
    "kick": 3,
    "ban": 3,
    "ban-ip": 3,
    "banlist": 3,
    "deop": 3,
    "op": 3,
    "pardon": 3,
    "pardon-ip": 3,
    "setidletimeout": 3,
    "transfer": 3,
    "whitelist": 3,
    # OWNERS_CHECK: dedicated SaveAll/SaveOff/SaveOn/Stop/Perf, JfrCommand, PublishCommand
    "save-all": 4,
    "save-off": 4,
    "save-on": 4,
    "stop": 4,
    "perf": 4,
    "jfr": 4,
    "publish": 4,
}

# Nodes below a root with their own requires(): mecha identifier prefix -> level.
# RandomCommand: `reset` and the `sequence` argument of value/roll are GAMEMASTERS.
NODE_LEVELS: dict[str, int] = {
    "random:reset": 2,
    "random:value:range:sequence": 2,
    "random:roll:range:sequence": 2,
}

# (required level, cursor where brigadier would stop) for one node of a parsed line.
Gate = tuple[int, int]


def clamp_level(raw: str | None, default: int = DEFAULT_LEVEL) -> int:
    """A server.properties level: an int 1-4 (bad text gives the default)."""
    try:
        value = int((raw or "").strip())
    except ValueError:
        return default
    return max(1, min(4, value))


def command_gates(node: AstCommand) -> tuple[Gate, ...]:
    """Every permission gate of a parsed line (nested `run` commands included), text order."""
    gates: list[Gate] = []
    for sub in node.walk():
        if not isinstance(sub, AstCommand):
            continue
        ident = sub.identifier
        start = int(sub.location.pos)
        root = ident.split(":", 1)[0]
        gates.append((ROOT_LEVELS.get(root, DEFAULT_LEVEL), start))
        for prefix, level in NODE_LEVELS.items():
            if ident == prefix or ident.startswith(prefix + ":"):
                gates.append((level, _node_start(sub, prefix, start)))
    gates.sort(key=lambda g: g[1])
    return tuple(gates)


def _node_start(node: AstCommand, prefix: str, start: int) -> int:
    """Where the gated node begins: its argument's position, or (a literal) the word after
    the root."""
    if prefix.endswith(":sequence") and len(node.arguments) > 1:
        return int(node.arguments[1].location.pos)
    return start + len(prefix.split(":", 1)[0]) + 1
