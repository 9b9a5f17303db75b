"""A request from the fields a face was given: `validated(model, data)` is the model, or a
ValidationError naming the first fault in the words every face uses (bot.i18n.refusals) and
the field at fault; nothing is made. The web's forms and bodies, and the registry's operations
on every face, come through here."""

from __future__ import annotations

__all__ = ["validated"]

from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from bot import errors
from bot.i18n import refusals

M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], data: Mapping[str, object]) -> M:
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        raise errors.ValidationError(refusals.explain(first, model), field=field) from None
