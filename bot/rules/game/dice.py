"""Seeded randomness: every dice throw and every wall shuffle comes from the table's seed.

A table has one seed. Each hand gets its own *hand seed*, derived from the table seed and the
number of the deal; the wall is shuffled and the dice are thrown from the hand seed with a
named purpose, so a replay of the same actions draws the same tiles. A SHA-256 of the hand seed
is published when the hand is dealt and the seed itself is revealed when the hand is over, so
players can check that the wall was not changed during the hand.
"""

from __future__ import annotations

import hashlib
import random


def hand_seed(table_seed: int | str, deal: int) -> str:
    """The seed of one deal (hex); it cannot be used to find the table seed."""
    return hashlib.sha256(f"mahjong-table|{table_seed}|deal|{deal}".encode()).hexdigest()


def seed_hash(seed: str) -> str:
    """What is published while the hand is played: SHA-256 of the hand seed (hex)."""
    return hashlib.sha256(seed.encode()).hexdigest()


def rng(material: int | str, purpose: str) -> random.Random:
    """A generator for one purpose (``"wall"``, ``"dice"``, ``"seating"``) of one seed.

    ``random.Random`` seeded with a string uses SHA-512 of it (CPython's seeding version 2),
    which is stable across runs and platforms.
    """
    return random.Random(f"{material}|{purpose}")


def throw(generator: random.Random) -> tuple[int, int]:
    """Two dice (Pung Chow p.13: "throws the two dice")."""
    return generator.randint(1, 6), generator.randint(1, 6)


def counted_seat(start: int, count: int) -> int:
    """The seat reached counting ``count`` around the table to the right (counter-clockwise),
    the thrower being "one" (Pung Chow p.14)."""
    return (start + count - 1) % 4
