"""The launcher's commands that are more than starting a face (bot.__main__ dispatches to them):
`check` (:mod:`bot.cli.check`), `export` and `import` (:mod:`bot.cli.plan`), `serve`, `token` and
`login` (:mod:`bot.cli.serve`)."""

from __future__ import annotations

__all__ = ["shell_caller"]

import getpass
import secrets

from bot.operations import Caller, Rank


def shell_caller() -> Caller:
    """Who runs a command in a shell: whoever has the bot's settings and data folder is its
    admin; the audit log names their login and says it was a shell."""
    return Caller(0, f"{getpass.getuser()} (shell)", Rank.ADMIN, "console", secrets.randbits(40))
