"""What the selftest reports: one Check per line, and the result with its exit status."""

from __future__ import annotations

__all__ = ["Check", "SelftestResult", "Status"]

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["PASS", "FAIL", "WARN"]


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: `PASS <name>[: detail]`, `FAIL <name>: <what is wrong and what to do>` or
    `WARN <name>: <what works but will surprise>`."""

    status: Status
    name: str
    detail: str = ""

    def line(self) -> str:
        return f"{self.status} {self.name}" + (f": {self.detail}" if self.detail else "")


@dataclass(slots=True)
class SelftestResult:
    """Every check of one run against one server, in the order they were made."""

    server: str
    checks: list[Check] = field(default_factory=list)
    duration: float = 0.0  # seconds, wall clock

    def add(self, status: Status, name: str, detail: str = "") -> Check:
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

    def lines(self) -> list[str]:
        verdict = "passed" if self.ok else f"FAILED ({len(self.failed)} check(s))"
        warned = sum(c.status == "WARN" for c in self.checks)
        tail = f", {warned} warning(s)" if warned else ""
        return [c.line() for c in self.checks] + [
            f"selftest of {self.server!r} {verdict}{tail} in {self.duration:.1f} s"
        ]

    def text(self) -> str:
        return "\n".join(self.lines())
