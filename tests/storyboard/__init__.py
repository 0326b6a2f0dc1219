"""A storyboard of one member's Discord client during a short game (issue 11).

``python -m tests.storyboard --out DIR`` plays a short game with the real bot over the fake
Discord (tests/fakediscord) and writes, in order, every message, edit and image one member's
client would show (``DIR/index.md`` and the PNG files), with a count per hand of channel
messages, channel edits, DM messages and DM edits. Its last line reads
``N hands: A channel messages, B channel edits, C DM messages, D DM edits, E edits that change
nothing visible``.

Why a module of the test tree and not ``mahjong-bot storyboard``: it needs the fake Discord,
which lives in tests/ and is not part of the installed package (the Docker image and a wheel
have no tests/). Importing it from the bot's command line would tie the product to its test
harness; ``python -m tests.storyboard`` runs from a checkout, where the fake is.

Pieces: ``count`` (pure: what a client shows, hand by hand, and which edits change nothing
visible), ``play`` (the game on the fake, recording the timeline) and ``write`` (the files).
"""
