"""Hints in words for one seat: which discards make the hand ready, what it waits on, how many
of those tiles are still unseen, what Mah-Jongg would score on each, and the rule set's traps.

Issue 11 item 9: the hand image marks the tiles whose discard keeps the hand ready with small
bars and no words. These pure functions read only what the seat may see (its own
:class:`~bot.rules.game.view.TableView`, which comes from :mod:`bot.service.privacy`), so a hint
can never tell a player anything about another player's concealed tiles.

What they say, and why:

- holding a tile to discard (3k+2 tiles): "Discard 3c or 6c to be ready." The kinds whose
  discard leaves sets and a pair one tile away, the rule set's special hands included
  (thirteen heads, seven pairs) when no set is declared.
- holding 3k+1 tiles and ready: "Waiting on 2b, 8b (5 unseen)." Unseen counts the copies the
  seat cannot see: not in its hand, not in anyone's declared sets, not lying among the
  discards. Then what Mah-Jongg would score on each wait, by the rule set's own scorer, drawn
  (while the wall still has tiles to draw) and on a discard; waits scoring alike share a line.
- warnings: singapore's Furi Tem ("FURI TEM": waiting on a tile you discarded yourself; a win
  on a discard without declaring it is forfeit and pays half the maximum, docs/rules.md), and
  a discard that would put the hand there; singapore's Renchon ("after the first game, East
  must have at least one bonus to win"), a wait without a bonus cannot win; the limit game's
  penalty 2 (Pung Chow p.67-69): a discard of the kind another player's exposed sets make
  dangerous (two dragon pungs, three wind pungs, nine tiles of one suit or of heads) makes the
  discarder pay for everyone if it lets that player win.

Not modelled, to stay cheap: the rare flags of a win (the last tile, the original hand), which
add bonuses but never take a win away. The seat's Furi Tem declaration is read from
``SeatView.furiten`` (whether it has declared); the engine also checks that the declaration
covers the current waits and offers "Declare Furi Tem" again when it does not.

Speed: every seat's hints are computed on every move, so the work per hand state (waits,
scores) is cached by the seat's own tiles and situation; ``benchmarks/hints.py`` measures it
over real games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.i18n import FALLBACK, N_, _, catalogue_of
from bot.i18n.score_words import score_words
from bot.i18n.tiles import tile_short, tile_words, wind_words
from bot.rules.analysis import is_seven_pairs, is_thirteen_heads, waits
from bot.rules.game.view import SeatView, TableView
from bot.rules.hand import DISCARD, SELF_DRAW, Hand, Situation, Win
from bot.rules.melds import Kind, Meld
from bot.rules.rulesets import HandError, RuleSet, get_ruleset
from bot.rules.rulesets.singapore import renchon_bonus_ok
from bot.rules.tiles import (
    DRAGONS,
    N_KINDS,
    WINDS,
    counts_of,
    is_dragon,
    is_head,
    is_wind,
    short_name,
    suit,
    tile_name,
)

SINGAPORE = "singapore"
LIMIT_GAME = "pung-chow-limit"


@dataclass(frozen=True, slots=True)
class WaitHint:
    """One tile the hand waits on: copies still unseen by the seat, and what Mah-Jongg on it
    would score drawn and on a discard (None: that way is closed, or the scorer refused it).
    ``limit_hand`` names a limit hand it would make; ``note`` says why a way is closed."""

    tile: int
    unseen: int
    self_draw: int | None = None
    discard: int | None = None
    limit_hand: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class Hints:
    """What to tell a seat, in words (``lines``, warnings last), and the same as data."""

    lines: tuple[str, ...] = ()
    ready_discards: tuple[int, ...] = ()
    waits: tuple[WaitHint, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def __bool__(self) -> bool:
        return bool(self.lines)


NO_HINTS = Hints()


# A seat's hints are asked for again on every move at its table while its own tiles stay as
# they were, so a cache pays for the hand states of the seats playing now (a state or two a
# seat), not for every state ever met: 1,024 serve about a thousand seats waiting at once. At
# 8,192 the scores of waits went on filling for hours at 50 tables (about 1 KB a ready hand),
# and the bot's memory with them; the hit rates of benchmarks/hints.py did not change.
HAND_STATES_KEPT = 1024


def tile_label(tile: int, locale: str = FALLBACK) -> str:
    """Suited tiles as on the buttons (``3c``, ``3萬``), honours by name (``Red Dragon``,
    ``紅中``): a lone ``S`` or ``W`` would be ambiguous in a sentence."""
    if catalogue_of(locale) != FALLBACK:
        return tile_short(locale, tile) if suit(tile) < 3 else tile_words(locale, tile)
    return short_name(tile) if suit(tile) < 3 else tile_name(tile)


def join_or(words: Sequence[str], locale: str = FALLBACK) -> str:
    if len(words) <= 1:
        return "".join(words)
    return _(locale, "{some} or {last}", some=_(locale, ", ").join(words[:-1]), last=words[-1])


def seat_hints(
    view: TableView,
    *,
    ruleset: str | None = None,
    options: Mapping[str, Any] | None = None,
    locale: str = FALLBACK,
) -> Hints:
    """The hints for ``view.viewer``'s seat (nothing for the public view, a finished hand or a
    seat whose tiles the view does not hold). ``ruleset`` and ``options`` default to the
    table's own (``view.ruleset``, ``view.options``)."""
    seat_index = view.viewer
    if (
        seat_index is None
        or view.revealed
        or view.game_over
        or view.phase
        not in (
            "play",
            "claim",
        )
    ):
        return NO_HINTS
    own = view.seats[seat_index]
    if own.concealed is None or not own.occupied:
        return NO_HINTS
    rules = get_ruleset(ruleset or view.ruleset)
    opts = options if options is not None else (view.options or {})
    tiles = (*own.concealed, *(() if own.drawn is None else (own.drawn,)))
    if len(tiles) % 3 == 2:
        return _discard_hints(view, own, rules, tiles, locale)
    if len(tiles) % 3 == 1:
        return _waiting_hints(view, own, rules, opts, tuple(sorted(tiles)), locale)
    return NO_HINTS


# -- before a discard ----------------------------------------------------------------------------


def _discard_hints(
    view: TableView, own: SeatView, rules: RuleSet, tiles: Sequence[int], locale: str = FALLBACK
) -> Hints:
    ready = _ready_after_discard(rules.name, tuple(sorted(tiles)), own.melds)
    lines: list[str] = []
    if ready:
        labels = [tile_label(t, locale) for t, _waits in ready]
        lines.append(_(locale, "Discard {tiles} to be ready.", tiles=join_or(labels, locale)))
    warnings: list[str] = []
    if rules.name == SINGAPORE and not own.riichi:
        discarded = set(own.discards)
        into = [t for t, tile_waits in ready if set(tile_waits) & (discarded | {t})]
        if into:
            warnings.append(
                _(
                    locale,
                    "Discarding {tiles} puts you in Furi Tem: you would wait on a tile you "
                    "discarded (declare it before winning on a discard).",
                    tiles=join_or([tile_label(t, locale) for t in into], locale),
                )
            )
    if rules.name == LIMIT_GAME:
        warnings.extend(_liability_warnings(view, own, tiles, locale))
    return Hints(
        lines=(*lines, *warnings),
        ready_discards=tuple(t for t, _waits in ready),
        warnings=tuple(warnings),
    )


@lru_cache(maxsize=HAND_STATES_KEPT)
def _ready_after_discard(
    ruleset: str, tiles: tuple[int, ...], melds: tuple[Meld, ...]
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Each kind whose discard leaves the hand ready, with the waits it leaves."""
    counts = counts_of(t for t in tiles if t < N_KINDS)
    held = _held(counts, melds)
    out = []
    for tile in sorted({t for t in tiles if t < N_KINDS}):
        counts[tile] -= 1
        held[tile] -= 1
        found = _waits(ruleset, counts, held, melds)
        if found:
            out.append((tile, found))
        counts[tile] += 1
        held[tile] += 1
    return tuple(out)


def _held(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    held = list(counts)
    for meld in melds:
        for t in meld.tiles:
            held[t] += 1
    return held


def _waits(
    ruleset: str, counts: Sequence[int], held: Sequence[int], melds: Sequence[Meld]
) -> tuple[int, ...]:
    """The kinds completing the hand: sets and a pair, or the rule set's special hands (only
    with nothing declared, and only those the rule set has)."""
    found = set(waits(counts, held=held))
    specials = get_ruleset(ruleset).specials
    if specials and not melds and sum(counts) == 13:
        work = list(counts)
        for tile in range(N_KINDS):
            if held[tile] >= 4:
                continue
            work[tile] += 1
            if ("thirteen-heads" in specials and is_thirteen_heads(work)) or (
                "seven-pairs" in specials and is_seven_pairs(work)
            ):
                found.add(tile)
            work[tile] -= 1
    return tuple(sorted(found))


def _liability_warnings(
    view: TableView, own: SeatView, tiles: Sequence[int], locale: str = FALLBACK
) -> list[str]:
    """Pung Chow p.67-68, penalty 2: the exposures that make a discard dangerous, read from
    the declared sets everyone sees (``dangerous_exposure`` in the limit game's rule set
    decides the payment at the end; this only warns, before the discard)."""
    held = {t for t in tiles if t < N_KINDS}
    out: list[str] = []
    for other in view.seats:
        if other.seat == own.seat or not other.occupied or not other.melds:
            continue
        danger, what = _danger_of(other.melds)
        risky = sorted(held & danger)
        if risky:
            out.append(
                _(
                    locale,
                    "Careful: {seat} shows {what}. If your discard of {tiles} lets them win, "
                    "you pay for everyone (Pung Chow p.67).",
                    seat=wind_words(locale, other.wind),
                    what=_(locale, what),
                    tiles=join_or([tile_label(t, locale) for t in risky], locale),
                )
            )
    return out


def _danger_of(melds: Sequence[Meld]) -> tuple[set[int], str]:
    exposed = [t for m in melds for t in m.tiles]
    sets_of_kind = {m.tile for m in melds if m.kind in (Kind.PUNG, Kind.KONG)}
    for s in range(3):
        if sum(1 for t in exposed if suit(t) == s) >= 9 and all(suit(t) == s for t in exposed):
            return set(range(9 * s, 9 * s + 9)), N_("nine or more tiles of one suit")
    if sum(1 for t in exposed if is_head(t)) >= 9 and all(is_head(t) for t in exposed):
        return {t for t in range(N_KINDS) if is_head(t)}, N_("nine or more heads")
    dragons = {t for t in sets_of_kind if is_dragon(t)}
    if len(dragons) == 2:
        return set(DRAGONS) - dragons, N_("two sets of dragons")
    winds = {t for t in sets_of_kind if is_wind(t)}
    if len(winds) == 3:
        return set(WINDS) - winds, N_("three sets of winds")
    return set(), ""


# -- ready: the waits ----------------------------------------------------------------------------


def _waiting_hints(
    view: TableView,
    own: SeatView,
    rules: RuleSet,
    options: Mapping[str, Any],
    tiles: tuple[int, ...],
    locale: str = FALLBACK,
) -> Hints:
    counts = counts_of(t for t in tiles if t < N_KINDS)
    held = _held(counts, own.melds)
    found = _waits(rules.name, counts, held, own.melds)
    if not found:
        return NO_HINTS
    seen = _seen(view)
    furiten = rules.name == SINGAPORE and bool(set(found) & set(own.discards))
    undeclared = furiten and not own.furiten
    renchon = view.renchon if rules.name == SINGAPORE and own.wind == 0 else 0
    can_draw = view.drawable > 0
    items: list[WaitHint] = []
    for tile in found:
        unseen = max(0, 4 - seen[tile])
        drawn, on_discard, limit, bonus_needed = _wait_scores(
            rules.name,
            _options_key(options),
            tiles,
            own.melds,
            own.flowers,
            own.wind,
            view.round_wind,
            renchon,
            own.riichi,
            tile,
        )
        note = ""
        if bonus_needed == (True, True):
            note = N_("no bonus, which East needs to win in a Renchon game")
        elif bonus_needed[1]:
            note = N_("not on a discard: no bonus, which East needs in a Renchon game")
        if not can_draw:
            drawn = None
        if undeclared and on_discard is not None:
            on_discard = None
            note = note or N_("Furi Tem: only by drawing, unless you declare it")
        items.append(WaitHint(tile, unseen, drawn, on_discard, limit, note))
    total = sum(w.unseen for w in items)
    names = _(locale, ", ").join(tile_label(w.tile, locale) for w in items)
    lines = [_(locale, "Waiting on {tiles} ({unseen} unseen).", tiles=names, unseen=total)]
    lines.extend(_score_lines(items, locale))
    warnings: list[str] = []
    if furiten:
        mine = join_or(
            [tile_label(t, locale) for t in sorted(set(found) & set(own.discards))], locale
        )
        if own.furiten:
            warnings.append(
                _(
                    locale,
                    "Furi Tem declared: you discarded {tiles}, which you wait on.",
                    tiles=mine,
                )
            )
        else:
            half = options.get("maximum", 2000) // 2 if isinstance(options, Mapping) else 1000
            warnings.append(
                _(
                    locale,
                    "Furi Tem: you discarded {tiles}, which you wait on. Winning on a discard "
                    "without declaring Furi Tem forfeits the win and pays {half} to the "
                    "discarder; declare it, or win by drawing.",
                    tiles=mine,
                    half=half,
                )
            )
    return Hints(lines=(*lines, *warnings), waits=tuple(items), warnings=tuple(warnings))


def _score_lines(items: Sequence[WaitHint], locale: str = FALLBACK) -> list[str]:
    """One line per distinct outcome, waits scoring alike together."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for w in items:
        groups.setdefault((w.self_draw, w.discard, w.limit_hand, w.note), []).append(w.tile)
    lines = []
    for (drawn, on_discard, limit, note), group in groups.items():
        ways = []
        if drawn is not None:
            ways.append(_(locale, "{points} drawn", points=drawn))
        if on_discard is not None:
            ways.append(_(locale, "{points} on a discard", points=on_discard))
        worth = _(locale, ", ").join(ways)
        if limit:
            named = score_words(locale, limit)
            worth = f"{named} ({worth})" if worth else named
        text = _(
            locale,
            "Mah-Jongg on {tiles}",
            tiles=join_or([tile_label(t, locale) for t in group], locale),
        )
        if worth:
            text += f": {worth}"
        if note:
            text += f"; {_(locale, note)}" if worth else f": {_(locale, note)}"
        lines.append(text + _(locale, "."))
    return lines


def _seen(view: TableView) -> list[int]:
    """Copies of each kind the viewer sees: its own tiles, every declared set, and the
    discards still lying where they were thrown (a claimed discard is counted in its set)."""
    seen = [0] * N_KINDS
    own = view.seats[view.viewer] if view.viewer is not None else None
    if own is not None and own.concealed is not None:
        for t in own.concealed:
            if t < N_KINDS:
                seen[t] += 1
        if own.drawn is not None and own.drawn < N_KINDS:
            seen[own.drawn] += 1
    for s in view.seats:
        for meld in s.melds:
            for t in meld.tiles:
                seen[t] += 1
        for i, t in enumerate(s.discards):
            if i not in s.claimed and t < N_KINDS:
                seen[t] += 1
    return seen


def _options_key(options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((str(k), v) for k, v in options.items()))


@lru_cache(maxsize=HAND_STATES_KEPT)
def _wait_scores(
    ruleset: str,
    options_key: tuple[tuple[str, Any], ...],
    tiles: tuple[int, ...],
    melds: tuple[Meld, ...],
    flowers: tuple[int, ...],
    seat_wind: int,
    round_wind: int,
    renchon: int,
    riichi: bool,
    tile: int,
) -> tuple[int | None, int | None, str | None, tuple[bool, bool]]:
    """What Mah-Jongg on ``tile`` scores drawn and on a discard (None: the scorer refuses
    it, or singapore's Renchon rule takes the win away), the limit hand it makes, and for
    each way whether it was the Renchon rule that took it away."""
    rules = get_ruleset(ruleset)
    options = rules.options(dict(options_key))
    hand = Hand(tuple(sorted((*tiles, tile))), melds, flowers)
    situation = Situation(seat_wind, round_wind, {"renchon": renchon} if renchon else {})
    flags = frozenset({"riichi"}) if riichi else frozenset()
    limit: str | None = None
    out: list[int | None] = []
    refused: list[bool] = []
    for by, source in ((SELF_DRAW, None), (DISCARD, (seat_wind + 3) % 4)):
        try:
            score = rules.score(hand, situation, Win(tile, by, source, flags), options)
        except HandError:
            out.append(None)
            refused.append(False)
            continue
        lacks_bonus = bool(renchon) and not renchon_bonus_ok(score)
        out.append(None if lacks_bonus else score.total)
        refused.append(lacks_bonus)
        if not lacks_bonus:
            limit = limit or score.limit_hand
    return out[0], out[1], limit, (refused[0], refused[1])
