"""The schedule outside the bot: the iCalendar feed (:mod:`bot.calendar.feed`, with the repeats
of :mod:`bot.calendar.recurrence`) and the plan's YAML export and import."""
