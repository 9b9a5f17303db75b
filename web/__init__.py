"""The web dashboard: the plugin host's second face, in Quart.

A face like the cogs: it reads and acts through the bot's services (pack client, command
check, audit store, event bus) and the same permissions, and never builds a Minecraft command
or reads server output. Needs the ``[web]`` extra.
"""

from __future__ import annotations

__all__ = ["create_app"]

from web.app import create_app
