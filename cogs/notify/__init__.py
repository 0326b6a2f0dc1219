"""Everything a live table sends to Discord (see :mod:`cogs.notify.notifier`)."""

from cogs.notify.notifier import DiscordTableNotifier

__all__ = ["DiscordTableNotifier"]
