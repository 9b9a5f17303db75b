"""A trigger as moderators set it: what starts its program, and its limits, declared once.

A trigger starts a saved program (bot.programs) on one server when something happens there:

- `started`: the server started, once the crash guard compared and released the pack's tasks;
- `players`: the number of players online crossed `players` going `up` (from below it to it or
  more) or `down` (from it or more to below it);
- `join`: a player joined (any, or the one named in `player`); the program's steps run as that
  player unless a step names its own `as_player`;
- `log`: a line of the server's log matched `pattern` (admins only). The pattern is text with
  `*` for any run of characters and at most one `{player}` for a player's name, which becomes
  the executor as for `join`. Only the server's own lines count: chat, `/say`, `/me` and command
  feedback (lines that start with `<`, `[` or `* `) never do, so no player can type a line that
  fires it. The matched text is never a command: the program runs its saved steps, and
  `{player}` matches only a name's letters, digits and `_`;
- `interest`: a Discord event (/event) reached `interested` members interested by `deadline`
  before its start: the program starts at the event's start (its steps' offsets count from
  it). Short of it at the deadline, `if_not` says: `cancel` (the default) cancels the event
  with an alert, `postpone` moves it (and its deadline) by `postpone`, at most MAX_POSTPONES
  times, then cancels it. Without `interested` (0) the program is simply bound to the event's
  start. An event moved after its program started gets the run of its new start (the old one
  is cancelled); a cancelled event's run is cancelled.

Every trigger has a cool-down (no second firing sooner) and a day's limit (at most `per_day`
firings in 24 hours); both are kept in the shared database, so several processes and restarts
share them (bot.store.triggers).
"""

from __future__ import annotations

__all__ = [
    "JOINED",
    "KINDS",
    "MAX_COOLDOWN",
    "MAX_PATTERN",
    "MIN_COOLDOWN",
    "Direction",
    "Kind",
    "LinePattern",
    "check_trigger",
    "check_trigger_name",
    "compile_pattern",
    "is_server_line",
    "joined_player",
]

import re
from dataclasses import dataclass
from typing import Final, Literal

from bot.errors import ValidationError, naming
from bot.i18n import lazy
from bot.store.triggers import TriggerSpec
from bot.times.when import parse_duration

Kind = Literal["started", "players", "join", "log", "interest"]
Direction = Literal["up", "down"]
KINDS: Final[tuple[Kind, ...]] = ("started", "players", "join", "log", "interest")
DEFAULT_DEADLINE: Final = "1h"  # before the event's start
DEFAULT_POSTPONE: Final = "1d"
MAX_POSTPONES: Final = 3  # then the event is cancelled
MIN_COOLDOWN: Final = 10  # seconds: a trigger never fires twice in a burst of the same news
MAX_COOLDOWN: Final = 7 * 86400
DEFAULT_COOLDOWN: Final = "10m"
DEFAULT_PER_DAY: Final = 24
MAX_PER_DAY: Final = 1440
MAX_PLAYERS: Final = 10_000
MAX_PATTERN: Final = 200
_MIN_LITERAL = 3  # a pattern's fixed text, at least: `*` alone would match every line
_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
_PLAYER = r"(?P<player>[A-Za-z0-9_]{1,16})"
# vanilla's multiplayer.player.joined (and .renamed), said by the server thread
_JOINED = re.compile(
    r"^(?P<player>[A-Za-z0-9_]{1,16})(?: \(formerly known as [A-Za-z0-9_]{1,16}\))? "
    r"joined the game$"
)
JOINED: Final = _JOINED
# what a player (or an op's command feedback) can put into the log: `<Name> chat`,
# `[Name] said`, `* Name acts`, `[Name: feedback]`, with 1.19+'s mark for unsigned chat
_SPOKEN = re.compile(r"^(?:\[Not Secure\] )?(?:<|\[|\* )")


def check_trigger_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise ValidationError(
            lazy(
                "The trigger name {name} is not a word: use 1 to 64 letters, digits, '_', '.', "
                "'+' or '-'.",
                name=repr(name),
            ),
            field="name",
        )
    return name


def is_server_line(message: str) -> bool:
    """A log message the server wrote of itself, not text a player or an op's command put
    there (see the module's text)."""
    return not _SPOKEN.match(message)


def joined_player(message: str) -> str | None:
    """The player a `... joined the game` message of the server names, else None."""
    found = _JOINED.match(message)
    return None if found is None else found.group("player")


@dataclass(frozen=True, slots=True)
class LinePattern:
    """A compiled `log` pattern: `match` gives (matched, player or None)."""

    text: str
    regex: re.Pattern[str]

    def match(self, message: str) -> tuple[bool, str | None]:
        if not is_server_line(message):
            return False, None
        found = self.regex.fullmatch(message)
        if found is None:
            return False, None
        return True, found.groupdict().get("player")


def compile_pattern(text: str) -> LinePattern:
    """`*` any text, `{player}` a player's name (once at most), the rest literal; the whole
    message must match. Built from literals and two fixed pieces only, so no pattern an admin
    types can make the matching slow or run anything."""
    with naming("pattern"):
        if not text.strip():
            raise ValidationError(lazy("Give the pattern: the log text to look for."))
        if len(text) > MAX_PATTERN:
            raise ValidationError(
                lazy("The pattern is {n} characters: {max} at most.", n=len(text), max=MAX_PATTERN)
            )
        if "\n" in text or "\r" in text:
            raise ValidationError(lazy("The pattern is one line of the log: no line breaks."))
        if text.count("{player}") > 1:
            raise ValidationError(lazy("The pattern may name `{player}` once only."))
        literal = text.replace("{player}", "").replace("*", "")
        if len(literal.strip()) < _MIN_LITERAL:
            raise ValidationError(
                lazy(
                    "The pattern needs at least {n} letters of fixed text: `*` alone would "
                    "match every line.",
                    n=_MIN_LITERAL,
                )
            )
        if not is_server_line(text.lstrip("*")):
            raise ValidationError(
                lazy(
                    "Lines that start with `<`, `[` or `* ` are chat, /say, /me or an op's "
                    "command feedback: a trigger never matches them, so no player can fire it."
                )
            )
        parts: list[str] = []
        for piece in re.split(r"(\{player\}|\*+)", text):
            if piece == "{player}":
                parts.append(_PLAYER)
            elif piece.startswith("*"):
                parts.append(".*?")
            elif piece:
                parts.append(re.escape(piece))
        return LinePattern(text, re.compile("".join(parts)))


def check_trigger(
    *,
    name: str,
    kind: str,
    program: str,
    server: str,
    cooldown: str | None = None,
    per_day: int | None = None,
    players: int | None = None,
    direction: str | None = None,
    player: str | None = None,
    pattern: str | None = None,
    event: int | None = None,
    interested: int | None = None,
    deadline: str | None = None,
    if_not: str | None = None,
    postpone: str | None = None,
) -> TriggerSpec:
    """A trigger's settings as `trigger add` takes them, checked (a mistake names its option)."""
    check_trigger_name(name)
    if kind not in KINDS:
        raise ValidationError(
            lazy(
                "There is no trigger kind {kind}: use {kinds}.",
                kind=repr(kind),
                kinds=", ".join(KINDS),
            ),
            field="kind",
        )
    with naming("cooldown"):
        seconds = parse_duration(cooldown or DEFAULT_COOLDOWN, lazy("The cool-down"))
        if not MIN_COOLDOWN <= seconds <= MAX_COOLDOWN:
            raise ValidationError(
                lazy("The cool-down is between 10 seconds and 7 days."), field="cooldown"
            )
    day = DEFAULT_PER_DAY if per_day is None else per_day
    if not 1 <= day <= MAX_PER_DAY:
        raise ValidationError(
            lazy("`per_day` is between 1 and {max}.", max=MAX_PER_DAY), field="per_day"
        )
    given = {
        "players": players is not None,
        "direction": direction is not None,
        "player": player is not None,
        "pattern": pattern is not None,
        "event": event is not None,
        "interested": interested is not None,
        "deadline": deadline is not None,
        "if_not": if_not is not None,
        "postpone": postpone is not None,
    }
    wanted = {
        "started": (),
        "players": ("players", "direction"),
        "join": ("player",),
        "log": ("pattern",),
        "interest": ("event", "interested", "deadline", "if_not", "postpone"),
    }[kind]
    for option, present in given.items():
        if present and option not in wanted:
            raise ValidationError(
                lazy(
                    "`{option}` is not for a trigger of kind {kind}.",
                    option=option,
                    kind=kind,
                ),
                field=option,
            )
    if kind == "players":
        if players is None or not 1 <= players <= MAX_PLAYERS:
            raise ValidationError(
                lazy("Give `players`: the count to cross, 1 to {max}.", max=MAX_PLAYERS),
                field="players",
            )
        if direction not in ("up", "down"):
            raise ValidationError(
                lazy("Give `direction`: up (the count rises to it) or down (falls below it)."),
                field="direction",
            )
    if player is not None and not re.fullmatch(r"[A-Za-z0-9_]{1,16}", player):
        raise ValidationError(
            lazy("{name} is not a player's name.", name=repr(player)), field="player"
        )
    if kind == "log":
        compile_pattern(pattern or "")
    before = step = None
    if kind == "interest":
        before, step = _interest(event, interested, deadline, if_not, postpone)
    return TriggerSpec(
        name=name,
        kind=kind,  # type: ignore[arg-type]
        program=program,
        server=server,
        cooldown=seconds,
        per_day=day,
        players=players,
        direction=direction,  # type: ignore[arg-type]
        player=player,
        pattern=pattern,
        event=event,
        interested=interested,
        deadline=before,
        if_not=(if_not or "cancel") if kind == "interest" else None,  # type: ignore[arg-type]
        postpone=step,
    )


def _interest(
    event: int | None,
    interested: int | None,
    deadline: str | None,
    if_not: str | None,
    postpone: str | None,
) -> tuple[int, int | None]:
    """An interest trigger's deadline and postponement in seconds, checked."""
    if event is None:
        raise ValidationError(lazy("Give `event`: the /event it watches."), field="event")
    if interested is not None and not 0 <= interested <= MAX_PLAYERS:
        raise ValidationError(
            lazy("`interested` is the count to reach, 0 to {max}.", max=MAX_PLAYERS),
            field="interested",
        )
    with naming("deadline"):
        before = parse_duration(deadline or DEFAULT_DEADLINE, lazy("The deadline"))
    if if_not not in (None, "postpone", "cancel"):
        raise ValidationError(lazy("`if_not` is postpone or cancel."), field="if_not")
    step = None
    if if_not == "postpone":
        with naming("postpone"):
            step = parse_duration(postpone or DEFAULT_POSTPONE, lazy("The postponement"))
            if step > MAX_COOLDOWN:
                raise ValidationError(lazy("An event is postponed by 7 days at most."))
    elif postpone is not None:
        raise ValidationError(
            lazy("`postpone` is how far to move the event: give `if_not: postpone` too."),
            field="postpone",
        )
    return before, step
