"""What the selftest reports: one Check per line, and the result with its exit status.

A check keeps its name as the English id (``status_of("marker task")``) and its detail as a lazy
text, so one result reads in the language of whoever shows it: the interaction's locale when a
cog replies, the console's when the CLI prints.
"""

from __future__ import annotations

__all__ = ["Check", "SelftestResult", "Status", "check_name", "status_word"]

from dataclasses import dataclass, field
from typing import Literal

from bot.i18n import Text, _, ngettext, pgettext
from bot.i18n.formats import decimal

Status = Literal["PASS", "FAIL", "WARN"]


def status_word(status: Status) -> str:
    """PASS, FAIL or WARN in the current locale."""
    words = {
        "PASS": pgettext("selftest status", "PASS"),
        "FAIL": pgettext("selftest status", "FAIL"),
        "WARN": pgettext("selftest status", "WARN"),
    }
    return words[status]


def check_name(name: str) -> str:
    """A check's name (its English id) in the current locale; an unknown one as it is."""
    names = {
        "rcon": pgettext("selftest check", "rcon"),
        "server software": pgettext("selftest check", "server software"),
        "pack enabled": pgettext("selftest check", "pack enabled"),
        "pack version": pgettext("selftest check", "pack version"),
        "function tags": pgettext("selftest check", "function tags"),
        "setup": pgettext("selftest check", "setup"),
        "command budget": pgettext("selftest check", "command budget"),
        "event source": pgettext("selftest check", "event source"),
        "marker task": pgettext("selftest check", "marker task"),
        "hostile run text": pgettext("selftest check", "hostile run text"),
        "cancel_all counts": pgettext("selftest check", "cancel_all counts"),
        "pause/resume": pgettext("selftest check", "pause/resume"),
        "game time": pgettext("selftest check", "game time"),
        "pause when empty": pgettext("selftest check", "pause when empty"),
        "retry counts": pgettext("selftest check", "retry counts"),
        "measured TPS": pgettext("selftest check", "measured TPS"),
        "broadcast-rcon-to-ops": pgettext("selftest check", "broadcast-rcon-to-ops"),
        "cleanup": pgettext("selftest check", "cleanup"),
    }
    return names.get(name, name)


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: `PASS <name>[: detail]`, `FAIL <name>: <what is wrong and what to do>` or
    `WARN <name>: <what works but will surprise>`."""

    status: Status
    name: str
    detail: Text = ""

    def short(self) -> str:
        """The status and the name only (a long report drops the details of passed checks)."""
        return f"{status_word(self.status)} {check_name(self.name)}"

    def line(self) -> str:
        detail = str(self.detail)
        return self.short() + (_(": {detail}", detail=detail) if detail else "")


@dataclass(slots=True)
class SelftestResult:
    """Every check of one run against one server, in the order they were made."""

    server: str
    checks: list[Check] = field(default_factory=list)
    duration: float = 0.0  # seconds, wall clock

    def add(self, status: Status, name: str, detail: Text = "") -> Check:
        check = Check(status, name, detail)
        self.checks.append(check)
        return check

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == "FAIL"]

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def exit_status(self) -> int:
        """1 when any check failed, else 0 (warnings do not fail the run)."""
        return 0 if self.ok else 1

    def status_of(self, name: str) -> Status | None:
        """The status of the named check (the first one with that name), None if not made."""
        return next((c.status for c in self.checks if c.name == name), None)

    def verdict(self) -> str:
        """The last line: passed or failed, the warnings, how long it took."""
        warned = sum(c.status == "WARN" for c in self.checks)
        seconds = decimal(self.duration, 1)
        server = repr(self.server)
        if self.ok and not warned:
            return _("selftest of {server} passed in {s} s", server=server, s=seconds)
        if self.ok:
            return ngettext(
                "selftest of {server} passed, {n} warning in {s} s",
                "selftest of {server} passed, {n} warnings in {s} s",
                warned,
                server=server,
                s=seconds,
            )
        failed = len(self.failed)
        if not warned:
            return ngettext(
                "selftest of {server} FAILED ({n} check) in {s} s",
                "selftest of {server} FAILED ({n} checks) in {s} s",
                failed,
                server=server,
                s=seconds,
            )
        return _(
            "selftest of {server} FAILED ({failed}), {warned} in {s} s",
            server=server,
            failed=ngettext("{n} check", "{n} checks", failed),
            warned=ngettext("{n} warning", "{n} warnings", warned),
            s=seconds,
        )

    def lines(self) -> list[str]:
        return [c.line() for c in self.checks] + [self.verdict()]

    def text(self) -> str:
        return "\n".join(self.lines())
