"""The README tells admins to run the selftest after installing."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    m = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^#)", text, re.S | re.M)
    assert m is not None, f"no section {title!r}"
    return m.group(1).strip()


def test_install_section_ends_with_the_selftest() -> None:
    assert _section("2. Install the pack").endswith("then run `python -m bot selftest`")


def test_users_guide_has_a_selftest_section_naming_every_check() -> None:
    text = _section("7. Selftest")
    for words in ("PASS", "FAIL", "WARN", "exits with 1", "doom.selftest.", "Ctrl-C"):
        assert words in text
