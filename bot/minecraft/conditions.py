"""The conditions a task runs under, as moderators write them: `require` (players>=N, players<N,
empty, online:<player>, several joined by commas), `if_not` (skip, or wait) with `max_wait` and
`after_wait` (run or skip once the wait is over). Checked here before anything is sent or
stored; the pack checks them when the task is due, from the `cond` compound they become
(datapack/README.md), so nothing is guessed ahead of time."""

from __future__ import annotations

__all__ = [
    "MAX_WAIT_SECONDS",
    "Conditions",
    "conditions_from",
    "describe",
    "held",
    "options_of",
    "pack_cond",
    "parse_conditions",
]

import re
from collections.abc import Callable, Collection, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Literal

from bot.errors import ValidationError
from bot.i18n import _, lazy
from bot.minecraft.pack_input import check_player
from bot.times.when import human, parse_duration

TICKS_PER_SECOND = 20
MAX_WAIT_SECONDS = 7 * 24 * 3600  # a week: longer than any wait for an empty server needs
MAX_PLAYERS = 100_000
_COUNT = re.compile(r"^players\s*(>=|<=|>|<)\s*(\d{1,6})$")
_ONLINE = re.compile(r"^online\s*:\s*(.*)$")
_HINT = lazy("write players>=N, players<N, empty or online:<player>, joined by commas")


@dataclass(frozen=True, slots=True)
class Conditions:
    """Players online at least `min` / at most `max`, `online` named player online; `wait`
    seconds to wait for them (0: skip at once), then `then`."""

    min: int | None = None
    max: int | None = None
    online: str | None = None
    wait: int = 0
    then: Literal["run", "skip"] = "skip"

    def pack_fields(self) -> dict[str, str | int]:
        """The pack's `cond` compound (its wait in game ticks)."""
        fields: dict[str, str | int] = {"wait": self.wait * TICKS_PER_SECOND, "then": self.then}
        if self.min is not None:
            fields["min"] = self.min
        if self.max is not None:
            fields["max"] = self.max
        if self.online is not None:
            fields["online"] = self.online
        return fields


def _term(text: str, found: dict[str, int | str]) -> None:
    low = text.lower()
    if low == "empty":
        found["max"] = min(int(found.get("max", MAX_PLAYERS)), 0)
        return
    count = _COUNT.match(low)
    if count is not None:
        op, n = count.group(1), int(count.group(2))
        bound = {">=": ("min", n), ">": ("min", n + 1), "<=": ("max", n), "<": ("max", n - 1)}[op]
        key, value = bound
        old = found.get(key)
        found[key] = value if old is None else (max if key == "min" else min)(int(old), value)
        return
    online = _ONLINE.match(text)
    if online is not None:
        name = online.group(1)
        try:
            check_player(name)  # the pack's rule for a player name
        except ValidationError:
            raise ValidationError(
                _(
                    "`require` {term}: {name} is not a player name (1 to 16 letters, digits or _).",
                    term=f"`{text}`",
                    name=f"`{name}`",
                ),
                field="require",
            ) from None
        if "online" in found and str(found["online"]).lower() != name.lower():
            raise ValidationError(
                _(
                    "`require` names two players ({a} and {b}): a task can wait for one player.",
                    a=f"`{found['online']}`",
                    b=f"`{name}`",
                ),
                field="require",
            )
        found["online"] = name
        return
    raise ValidationError(
        _("`require` {term} is not a condition: {hint}.", term=f"`{text}`", hint=_HINT),
        field="require",
    )


def parse_conditions(
    require: str | None,
    if_not: str | None = None,
    max_wait: str | None = None,
    after_wait: str | None = None,
) -> Conditions | None:
    """The conditions of these options (None when there are none), or ValidationError naming
    the option at fault."""
    if require is None or not require.strip():
        for name, value in (("if_not", if_not), ("max_wait", max_wait), ("after_wait", after_wait)):
            if value is not None:
                raise ValidationError(
                    _(
                        "`{name}` says what to do when the conditions are not met: give "
                        "`require` too.",
                        name=name,
                    ),
                    field=name,
                )
        return None
    found: dict[str, int | str] = {}
    for part in require.split(","):
        if part.strip():
            _term(part.strip(), found)
    low, high = found.get("min"), found.get("max")
    if low is not None and high is not None and int(low) > int(high):
        raise ValidationError(
            _(
                "`require` {text} can never be met: at least {min} and at most {max} players.",
                text=f"`{require.strip()}`",
                min=low,
                max=high,
            ),
            field="require",
        )
    if high is not None and int(high) < 0:
        raise ValidationError(
            _(
                "`require` {text} can never be met: no server has fewer than 0 players.",
                text=f"`{require.strip()}`",
            ),
            field="require",
        )
    wait = _wait(if_not, max_wait, after_wait)
    then: Literal["run", "skip"] = "run" if after_wait == "run" else "skip"
    return Conditions(
        min=int(low) if low is not None else None,
        max=int(high) if high is not None else None,
        online=str(found["online"]) if "online" in found else None,
        wait=wait,
        then=then,
    )


def _wait(if_not: str | None, max_wait: str | None, after_wait: str | None) -> int:
    if if_not not in (None, "skip", "wait"):
        raise ValidationError(
            _("`if_not` is skip or wait, not {value}.", value=f"`{if_not}`"), field="if_not"
        )
    if after_wait not in (None, "run", "skip"):
        raise ValidationError(
            _("`after_wait` is run or skip, not {value}.", value=f"`{after_wait}`"),
            field="after_wait",
        )
    if if_not != "wait":
        for name, value in (("max_wait", max_wait), ("after_wait", after_wait)):
            if value is not None:
                raise ValidationError(
                    _("`{name}` is for `if_not:wait` only.", name=name), field=name
                )
        return 0
    if max_wait is None:
        raise ValidationError(
            _("`if_not:wait` needs `max_wait`: how long to wait at most, like 10m."),
            field="max_wait",
        )
    try:
        seconds = parse_duration(max_wait, lazy("The longest wait `max_wait`"))
    except ValidationError as exc:
        raise ValidationError(str(exc), field="max_wait") from exc
    if seconds > MAX_WAIT_SECONDS:
        raise ValidationError(
            _("The longest wait `max_wait` {text} is longer than a week.", text=f"`{max_wait}`"),
            field="max_wait",
        )
    return seconds


def conditions_from(stored: Mapping[str, object] | None) -> Conditions | None:
    """The conditions of a stored option set (the four option names as keys), checked again."""
    if not stored:
        return None

    def text(name: str) -> str | None:
        value = stored.get(name)
        return value if isinstance(value, str) else None

    return parse_conditions(text("require"), text("if_not"), text("max_wait"), text("after_wait"))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# a test of one term: (players online, their names in lower case) -> whether it holds
_Test = Callable[[int, AbstractSet[str]], bool]


def _checks(cond: Mapping[str, object]) -> list[tuple[str, _Test]]:
    """The `require` terms of a pack `cond`, in the grammar moderators write, each with the
    test the pack makes of it when the task is due (datapack core/cond/met)."""
    checks: list[tuple[str, _Test]] = []
    low, high = _count(cond.get("min")), _count(cond.get("max"))
    if high == 0:
        checks.append(("empty", lambda n, names: n == 0))
    else:
        if low:
            checks.append((f"players>={low}", lambda n, names: n >= low))
        if high is not None and high < 2**31 - 1:
            checks.append((f"players<{high + 1}", lambda n, names: n <= high))
    if isinstance(online := cond.get("online"), str):
        checks.append((f"online:{online}", lambda n, names: online.lower() in names))
    return checks


def _terms(cond: Mapping[str, object]) -> list[str]:
    """The `require` terms of a pack `cond`, in the grammar moderators write."""
    return [term for term, _test in _checks(cond)]


def held(cond: Conditions, online: Collection[str]) -> list[tuple[str, bool]]:
    """Each `require` term and whether it holds with these players online (their names), as the
    pack would find it if the task were due now."""
    names = {n.lower() for n in online}
    return [(term, test(len(names), names)) for term, test in _checks(cond.pack_fields())]


def options_of(cond: Mapping[str, object] | None) -> dict[str, str]:
    """The condition options that make this pack `cond` again (the defaults left out): how a
    plan file writes a game-time task's conditions, which the pack keeps only as `cond`."""
    terms = _terms(cond) if cond else []
    if cond is None or not terms:
        return {}
    options = {"require": ",".join(terms)}
    wait = _count(cond.get("wait")) or 0
    if wait > 0:
        options["if_not"] = "wait"
        options["max_wait"] = human(max(1, wait // TICKS_PER_SECOND))
        if cond.get("then") == "run":
            options["after_wait"] = "run"
    return options


def describe(cond: Mapping[str, object]) -> str:
    """A task's conditions as the pack keeps them (`cond`), in the grammar moderators write,
    with what happens when they do not hold, in the reader's language."""
    shown = ", ".join(_terms(cond)) or "-"
    wait = _count(cond.get("wait")) or 0
    if wait <= 0:
        return _("{require}; if not: skip this run", require=f"`{shown}`")
    then = cond.get("then")
    wait_text = human(wait // TICKS_PER_SECOND)
    if then == "run":
        return _(
            "{require}; if not: wait up to {wait}, then run", require=f"`{shown}`", wait=wait_text
        )
    return _(
        "{require}; if not: wait up to {wait}, then skip", require=f"`{shown}`", wait=wait_text
    )


def pack_cond(stored: Mapping[str, object] | None) -> dict[str, str | int] | None:
    """The pack's `cond` of stored condition options (checked when they were stored)."""
    found = conditions_from(stored)
    return found.pack_fields() if found is not None else None
