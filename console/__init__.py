"""The console face: the bot's slash commands typed in a terminal (``python -m bot console``).

A face beside ``cogs/`` and ``web/``: it runs the bot's own CommandTree and cogs on the local
Discord (bot.localdiscord) and prints what Discord would show. It imports the bot; the bot never
imports it but in the launcher (``bot/__main__.py``), which starts it.
"""
