"""The JSON API of the registry's operations (bot.operations.registry): each is
``POST /api/operations/<name>`` with its request as the body, documented in the OpenAPI
document from its request model, answered by :func:`bot.operations.registry.run` (the rank
check, the validation, the audit). ``GET /api/operations`` lists them. No route here is written
for one operation: a registered one has its route when the dashboard starts."""

from __future__ import annotations

__all__ = ["blueprint_for"]

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
        return {"operation": done.name, "outcome": done.text}

    view.__name__ = f"operation_{spec.name.replace('-', '_')}"
    view.__doc__ = f"{spec.summary}\n\nRank: {_RANKS[int(spec.rank)]}."
    return tag(["operations"])(write_limit(action()(validate_request(spec.request)(view))))


def blueprint_for(registry: Registry) -> Blueprint:
    """The routes of the operations registered when the dashboard is made."""
    blueprint = Blueprint("api_ops", __name__, url_prefix="/api")

    @blueprint.get("/operations")
    @tag(["operations"])
    @page()
    async def listed() -> Any:
        """The registry's operations: each one's name, summary, rank and path.

        Each is also a slash command and a console command of the same name and options;
        `changes` says whether running it is a change (audited).
        """
        return {
            "operations": [
                {
                    "name": s.name,
                    "summary": s.summary,
                    "rank": _RANKS[int(s.rank)],
                    "changes": s.changes,
                    "path": f"/api/operations/{s.name}",
                }
                for s in registry
            ]
        }

    for spec in registry:
        view = _view(spec)
        blueprint.add_url_rule(f"/operations/{spec.name}", view.__name__, view, methods=["POST"])
    return blueprint
