"""The game itself: wall, turns, claims and the views each seat may see (no Discord)."""
