"""The console face: the operations typed in a terminal (``python -m bot console``).

A face beside ``cogs/`` and ``web/``: a line is read against the operation registry (the slash
commands' names and options) and runs on the core (bot.core), with no Discord in it; outcomes,
alerts and questions print as text. It imports the bot; the bot never imports it but in the
launcher (``bot/__main__.py``), which starts it.
"""
