"""Computer players: pure functions from a seat's view and its legal actions to an action."""

from bot.players.computer import decide

__all__ = ["decide"]
