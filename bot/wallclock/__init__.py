"""Wall-clock schedules: parsing of `when`/`repeat`/`timezone`/`announce` and the scheduler that
hands rows over to the pack at their time."""
