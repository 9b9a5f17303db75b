"""Text components rendered to the plain text a player sees (tellraw, nbt/score/selector parts).

Read from `text/*TextContent.java` and `text/Texts.java` of the 1.21.11 decompile:
- content is picked by `type` or by the first present key of text, translate, score, selector,
  keybind, nbt; `extra` follows; a list is its first element with the rest appended.
- `score`: name `*` is the receiving player (tellraw's `sender`); a selector name must match at most
  one entity ("Only one entity is allowed..."); an unset score or objective renders empty.
- `selector`: display names joined by `separator` (default ", "); nothing found renders empty.
- `nbt` with interpret false: each match as its string value (strings) or SNBT (anything else),
  joined by `separator` (default ", "); a path that matches nothing renders empty.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import TYPE_CHECKING, Any

from nbtlib.tag import Byte, Compound, Double, Float, Int, Long, Short, String

from mcsim.entities import Entity
from mcsim.errors import CommandError, UnsupportedCommand
from mcsim.selectors import TOO_MANY_ENTITIES, resolve_targets, score_holder_name

if TYPE_CHECKING:
    from mecha.ast import AstNode

    from mcsim.context import Source
    from mcsim.state import SimState

__all__ = ["TRANSLATIONS", "parse_selector_text", "render", "translate"]

log = logging.getLogger(__name__)

# A few en_us.json keys a pack may plausibly use; others render as their key, as vanilla does
# for keys missing from the server's language file.
TRANSLATIONS: dict[str, str] = {
    "chat.type.announcement": "[%s] %s",
    "chat.type.emote": "* %s %s",
    "chat.type.text": "<%s> %s",
    "chat.type.admin": "[%s: %s]",
    "multiplayer.player.joined": "%s joined the game",
    "multiplayer.player.left": "%s left the game",
    "commands.kill.success.single": "Killed %s",
    "commands.kill.success.multiple": "Killed %s entities",
    "death.attack.genericKill": "%1$s was killed",
    "gui.yes": "Yes",
    "gui.no": "No",
    "options.on": "ON",
    "options.off": "OFF",
}

_CONTENT_KEYS = ("text", "translate", "score", "selector", "keybind", "nbt")
_TYPE_KEYS = {
    "text": "text",
    "translatable": "translate",
    "score": "score",
    "selector": "selector",
    "keybind": "keybind",
    "nbt": "nbt",
}
_FORMAT = re.compile(r"%(?:(\d+)\$)?([s%])")
_MAX_DEPTH = 100


def translate(key: str, args: list[str], fallback: str | None = None) -> str:
    """`%s` and `%1$s` filled from args; a missing argument renders empty."""
    template = TRANSLATIONS.get(key, fallback if fallback is not None else key)
    position = 0

    def fill(m: re.Match[str]) -> str:
        nonlocal position
        if m.group(2) == "%":
            return "%"
        if m.group(1) is not None:
            index = int(m.group(1)) - 1
        else:
            index = position
            position += 1
        return args[index] if 0 <= index < len(args) else ""

    return _FORMAT.sub(fill, template)


@functools.lru_cache(maxsize=1)
def _mecha() -> Any:
    from mecha import Mecha

    return Mecha(version="1.21")


@functools.lru_cache(maxsize=1024)
def parse_selector_text(text: str) -> AstNode:
    """A selector/name/UUID string (from a component) parsed as an entity argument."""
    try:
        return _mecha().parse(text, using="entity")
    except Exception as exc:  # mecha's DiagnosticError: vanilla drops the bad component
        raise CommandError(f"Invalid entity selector in text component: {text}") from exc


def _scalar_text(tag: Any) -> str:
    if isinstance(tag, Byte | Short | Int | Long):
        return str(int(tag))
    if isinstance(tag, Float | Double):
        return repr(float(tag))
    return str(tag)


class _Renderer:
    def __init__(self, sim: SimState, source: Source, receiver: Entity | None) -> None:
        self.sim = sim
        self.source = source
        self.receiver = receiver

    def render(self, tag: Any, depth: int = 0) -> str:
        if depth > _MAX_DEPTH:
            raise CommandError("Text component is too deeply nested")
        if isinstance(tag, String):
            return str(tag)
        if isinstance(tag, list):
            return "".join(self.render(part, depth + 1) for part in tag)
        if isinstance(tag, Compound):
            return self.compound(tag, depth)
        return _scalar_text(tag)  # numbers and booleans are accepted as text

    def compound(self, tag: Compound, depth: int) -> str:
        kind = _TYPE_KEYS.get(str(tag["type"])) if "type" in tag else None
        if kind is None:
            kind = next((k for k in _CONTENT_KEYS if k in tag), None)
        if kind is None:
            raise CommandError("Invalid text component: no content")
        out = getattr(self, "content_" + kind)(tag, depth)
        extra = tag.get("extra")
        if isinstance(extra, list):
            out += "".join(self.render(part, depth + 1) for part in extra)
        return out

    def content_text(self, tag: Compound, depth: int) -> str:
        return _scalar_text(tag["text"])

    def content_translate(self, tag: Compound, depth: int) -> str:
        args = tag.get("with")
        rendered = [self.render(a, depth + 1) for a in args] if isinstance(args, list) else []
        fallback = tag.get("fallback")
        return translate(
            str(tag["translate"]), rendered, None if fallback is None else str(fallback)
        )

    def content_keybind(self, tag: Compound, depth: int) -> str:
        return translate(str(tag["keybind"]), [])

    def content_score(self, tag: Compound, depth: int) -> str:
        score = tag["score"]
        name, objective = str(score["name"]), str(score["objective"])
        holder: str
        if name == "*":
            if self.receiver is None:
                return ""
            holder = score_holder_name(self.receiver)
        elif name.startswith("@"):
            found = self.targets(name)
            if len(found) > 1:
                raise CommandError(TOO_MANY_ENTITIES)
            holder = score_holder_name(found[0]) if found else name
        else:
            holder = name
        value = self.sim.scoreboard.get(holder, objective)
        return "" if value is None else str(value)

    def content_selector(self, tag: Compound, depth: int) -> str:
        found = self.targets(str(tag["selector"]))
        sep = tag.get("separator")
        separator = ", " if sep is None else self.render(sep, depth + 1)
        return separator.join(e.name for e in found)

    def content_nbt(self, tag: Compound, depth: int) -> str:
        from mcsim.nbt import NbtPath, format_snbt

        if tag.get("interpret") not in (None, Byte(0)) and bool(tag.get("interpret")):
            raise UnsupportedCommand("text component nbt with interpret:true")
        if "block" in tag:
            raise UnsupportedCommand("text component nbt from a block")
        try:
            path = NbtPath.parse(str(tag["nbt"]))
        except CommandError:
            return ""  # vanilla: an unparsable path renders empty
        roots: list[Any] = []
        if "storage" in tag:
            storage_id = str(tag["storage"])
            if ":" not in storage_id:
                storage_id = "minecraft:" + storage_id
            root = self.sim.storage.get(storage_id)
            roots = [root if root is not None else Compound()]
        elif "entity" in tag:
            roots = [e.to_nbt() for e in self.targets(str(tag["entity"]))]
        values: list[str] = []
        for root in roots:
            try:
                matches = path.get(root)
            except CommandError:
                continue
            values.extend(str(v) if isinstance(v, String) else format_snbt(v) for v in matches)
        sep = tag.get("separator")
        separator = ", " if sep is None else self.render(sep, depth + 1)
        return separator.join(values)

    def targets(self, text: str) -> list[Entity]:
        node = parse_selector_text(text)
        return resolve_targets(
            node, self.source, self.sim.entities, self.sim.rng, scoreboard=self.sim.scoreboard
        )


def render(component: Any, sim: SimState, source: Source, receiver: Entity | None = None) -> str:
    """Plain text of `component` (an nbtlib tag) as `receiver` sees it.

    Raises CommandError for a component vanilla would refuse at run time (score selector matching
    several entities); UnsupportedCommand for parts mcsim does not model.
    """
    return _Renderer(sim, source, receiver).render(component)
