"""Every event the pack makes has a title of its own in both languages (the dashboard's feed
shows the title beside the type: a type that was its own title read "retry retry")."""

from __future__ import annotations

import re

import pytest

from bot.events.event import Event
from bot.events.kinds import title_of
from bot.i18n import use_locale
from tests.fixtures import PACK_DIR

# the pack's events table (datapack/README.md, "Events"): | `type` | when | extra keys |
_ROW = re.compile(r"^\| `([a-z_]+)` \|", re.M)


def pack_event_types() -> list[str]:
    text = (PACK_DIR / "README.md").read_text(encoding="utf-8")
    table = text.split("## Events", 1)[1].split("\n\n", 2)[1]
    return _ROW.findall(table)


def test_the_pack_readme_lists_its_events() -> None:
    assert {"retry", "retry_exhausted", "offline", "restored", "dropped", "invalid"} <= set(
        pack_event_types()
    )


@pytest.mark.parametrize("kind", pack_event_types())
def test_each_pack_event_is_titled_in_english_and_chinese(kind: str) -> None:
    event = Event("main", 1, kind, "t", 100)
    with use_locale("en"):
        english = title_of(event)
    with use_locale("zh_CN"):
        chinese = title_of(event)
    assert english != kind, english
    assert chinese != english and not chinese.isascii(), chinese
