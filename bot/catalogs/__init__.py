"""The translation catalogs' upkeep, for developers: ``python -m bot.catalogs update|check|tree``
(:mod:`bot.catalogs.cli`) extracts the texts of the code, the templates and the slash command
tree (:mod:`bot.catalogs.tree`), merges them into locale/ and checks the translations. The bot
never imports it: the run-time side of translation is :mod:`bot.i18n`."""
