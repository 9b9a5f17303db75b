"""The Discord adapter, the one part of bot/ that imports discord.py: the bot
(:mod:`bot.discord.app`), its launch (:mod:`bot.discord.launch`), the cogs' helpers
(:mod:`bot.discord.slash`) and Discord scheduled events bound to tasks
(:mod:`bot.discord.guildevents`). The cogs (cogs/) are its commands.

Every module here imports with absolute names and ``from __future__ import annotations``, so
``import discord`` inside this package is discord.py, never this package; nothing is imported
here, so importing a submodule loads nothing else."""
