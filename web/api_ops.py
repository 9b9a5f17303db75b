"""The JSON API of the registry's operations (bot.operations.registry): each is
``POST /api/operations/<name>`` with its request as the body, documented in the OpenAPI
document from its request model, answered by :func:`bot.operations.registry.run` (the rank
check, the validation, the audit). ``GET /api/operations`` lists them. No route here is written
for one operation: a registered one has its route when the dashboard starts."""

from __future__ import annotations

__all__ = ["blueprint_for"]

import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel
from quart import Blueprint, g
from quart_schema import tag, validate_request

from bot import errors
from bot.operations import registry as ops_registry
from bot.operations.registry import OperationSpec, Registry
from web.actions import caller
from web.auth import action, page, write_limit
from web.context import operations
from web.inputs import refusal

_RANKS = {0: "anyone", 1: "moderator", 2: "admin"}


def _view(spec: OperationSpec[Any]) -> Callable[..., Awaitable[Any]]:
    async def view(data: BaseModel) -> Any:
        given = data.model_dump(exclude_unset=True)
        try:
            done = await ops_registry.run(operations(), caller(g.user), spec.name, given)
        except errors.BotError as exc:
            return refusal(exc)
        files = [{"name": f.name, "text": f.content.decode()} for f in done.files]
        return {
            "operation": done.name,
            "outcome": done.full_text,
            "facts": done.facts,
            "files": files,
        }

    view.__name__ = "operation_" + re.sub("[- ]", "_", spec.name)
    view.__doc__ = f"{spec.summary}\n\nRank: {_RANKS[int(spec.rank)]}."
    return tag(["operations"])(write_limit(action()(validate_request(spec.request)(view))))


def _path(spec: OperationSpec[Any]) -> str:
    """`/api/operations/plan/export` for the operation `plan export`."""
    return "/api/operations/" + spec.name.replace(" ", "/")


def blueprint_for(registry: Registry) -> Blueprint:
    """The routes of the operations registered when the dashboard is made."""
    blueprint = Blueprint("api_ops", __name__, url_prefix="/api")

    @blueprint.get("/operations")
    @tag(["operations"])
    @page()
    async def listed() -> Any:
        """The registry's operations: each one's name, summary, rank and path.

        Each is also a slash command and a console command of the same name and options;
        `changes` says whether running it is a change (audited); `path` is the route that runs
        it, none for a built-in one, which the resource routes (`/api/servers/...`) answer.
        """
        return {
            "operations": [
                {
                    "name": s.name,
                    "summary": s.summary,
                    "rank": _RANKS[int(s.rank)],
                    "changes": s.changes,
                    "path": None if s.face_code else _path(s),
                }
                for s in registry
            ]
        }

    for spec in registry:
        if spec.face_code:  # a built-in: the API's resource routes answer it
            continue
        view = _view(spec)
        route = _path(spec).removeprefix("/api")
        blueprint.add_url_rule(route, view.__name__, view, methods=["POST"])
    return blueprint
