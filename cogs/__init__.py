"""The Discord surface: one extension module per cog (``cogs.table``, ``cogs.scoring``,
``cogs.ledger``), each with ``async def setup(bot)``; ``cogs.common`` holds what they share."""
