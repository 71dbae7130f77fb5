"""Allow ``python -m bot``."""

from bot.cli import main

main()
