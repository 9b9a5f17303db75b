"""The test kit: what the project's own tests run the bot on, shipped for plugin authors too.

- :mod:`bot.testkit.localdiscord`: the local Discord, Discord's side of the connection in
  process, held to Discord's documented limits (bot.discord.slash.limits): the harness for the
  Discord face's tests. Nothing in the product runs on it.
"""
