"""`tag <targets> add|remove|list` (S/TagCommand.java): entity command tags."""

from __future__ import annotations

import logging

from mecha.ast import AstCommand

from mcsim.entities import Entity
from mcsim.errors import CommandError
from mcsim.registry import Call, handler

__all__: list[str] = []

log = logging.getLogger(__name__)

MAX_TAGS = 1024


def _targets(call: Call, node: AstCommand) -> list[Entity]:
    from mcsim.selectors import select_entities

    sim = call.sim
    return select_entities(
        node.arguments[0], call.source, sim.entities, sim.rng, scoreboard=sim.scoreboard
    )


@handler("tag:targets:add:name")
def tag_add(call: Call, node: AstCommand) -> int:
    targets = _targets(call, node)
    name = str(node.arguments[1].value)  # type: ignore[attr-defined]
    changed = 0
    for e in targets:
        if name not in e.tags and len(e.tags) < MAX_TAGS:
            e.tags.add(name)
            changed += 1
    if changed == 0:
        raise CommandError("Target either already has the tag or has too many tags")
    if len(targets) == 1:
        call.feedback(f"Added tag '{name}' to {targets[0].name}")
    else:
        call.feedback(f"Added tag '{name}' to {len(targets)} entities")
    return changed


@handler("tag:targets:remove:name")
def tag_remove(call: Call, node: AstCommand) -> int:
    targets = _targets(call, node)
    name = str(node.arguments[1].value)  # type: ignore[attr-defined]
    changed = 0
    for e in targets:
        if name in e.tags:
            e.tags.discard(name)
            changed += 1
    if changed == 0:
        raise CommandError("Target does not have this tag")
    if len(targets) == 1:
        call.feedback(f"Removed tag '{name}' from {targets[0].name}")
    else:
        call.feedback(f"Removed tag '{name}' from {len(targets)} entities")
    return changed


@handler("tag:targets:list")
def tag_list(call: Call, node: AstCommand) -> int:
    targets = _targets(call, node)
    tags: set[str] = set()
    for e in targets:
        tags |= e.tags
    joined = ", ".join(sorted(tags))  # vanilla: a HashSet's order (not reproduced)
    if len(targets) == 1:
        who = targets[0].name
        if tags:
            call.feedback(f"{who} has {len(tags)} tags: {joined}", broadcast=False)
        else:
            call.feedback(f"{who} has no tags", broadcast=False)
    elif tags:
        call.feedback(
            f"The {len(targets)} entities have {len(tags)} total tags: {joined}", broadcast=False
        )
    else:
        call.feedback(f"There are no tags on the {len(targets)} entities", broadcast=False)
    return len(tags)
