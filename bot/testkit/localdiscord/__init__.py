"""A local Discord: Discord's side of the connection, in process, for the tests (the test kit).

:mod:`~bot.testkit.localdiscord.emulator` (``LocalDiscord``) builds the interaction payloads Discord
sends and answers the bot's HTTP requests (:mod:`~bot.testkit.localdiscord.http_session`), held to
Discord's documented limits (:mod:`~bot.discord.slash.limits`, which the cog helpers' fitting
reads too); :mod:`~bot.testkit.localdiscord.scheduled_events` plays the guild's scheduled events.
Nothing here knows the bot's application: it is a stand-in for Discord, as mcsim is for a server.
"""
