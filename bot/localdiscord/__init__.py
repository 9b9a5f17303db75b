"""A local Discord: Discord's side of the connection, in process, for the console and the tests.

:mod:`~bot.localdiscord.emulator` (``LocalDiscord``) builds the interaction payloads Discord
sends and answers the bot's HTTP requests (:mod:`~bot.localdiscord.http_session`), held to
Discord's documented limits (:mod:`~bot.localdiscord.limits`, which the cog helpers' fitting
reads too); :mod:`~bot.localdiscord.scheduled_events` plays the guild's scheduled events.
Nothing here knows the bot's application: it is a stand-in for Discord, as mcsim is for a server.
"""
