"""``python -m bot.catalogs``: see :mod:`bot.catalogs.cli`."""

import sys

from bot.catalogs.cli import main

sys.exit(main())
