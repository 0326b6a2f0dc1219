"""``mahjong-score``: score a hand from the command line, for people playing with real tiles.

mahjong-score "123m 456m 789p 222p 5s [555s] {1111z} win 5s from W" --rules pung-chow --seat S
echo '{"ruleset": "pung-chow", ...}' | mahjong-score --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from bot.rules.hand import Hand
from bot.rules.notation import parse_hand
from bot.rules.options import OptionError, parse_option_text
from bot.rules.rulesets import RULESETS, HandError
from bot.rules.table_score import (
    SEAT_LETTERS,
    RequestError,
    SeatHand,
    TableRequest,
    request_from_json,
    result_to_json,
    score_table,
    seat_of,
)
from bot.rules.tiles import NotationError

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mahjong-score",
        description="Score a mahjong hand and show what each seat pays.",
        epilog="Hand notation: see the README (compact 123m456p789s11z or 123c 456d 789b EE; "
        "[555s] exposed, {1111z} concealed kong, 'win 5s', 'discard'/'self-draw', 'from W').",
    )
    parser.add_argument("hand", nargs="?", help="the hand, in quotes")
    parser.add_argument("--rules", default="pung-chow", choices=sorted(RULESETS))
    parser.add_argument("--seat", default="E", help="the player's wind: E, S, W or N")
    parser.add_argument("--round", default="E", help="the round's wind (limit game)")
    parser.add_argument("--limit", help="the limit (a number, or none)")
    parser.add_argument("--mahjong-bonus", type=int, choices=(10, 20))
    parser.add_argument("--flowers", action="store_true", help="play with flowers/seasons")
    parser.add_argument(
        "--renchon",
        type=int,
        default=0,
        choices=range(10),
        metavar="N",
        help="singapore: East's consecutive wins before this hand (Renchon games)",
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="any other option"
    )
    parser.add_argument(
        "--json", action="store_true", help="read one JSON document on stdin, write one"
    )
    return parser


def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.limit is not None:
        options["limit"] = args.limit
    if args.mahjong_bonus is not None:
        options["mahjong_bonus"] = args.mahjong_bonus
    if args.flowers:
        options["flowers"] = True
    for item in args.option:
        if "=" not in item:
            raise RequestError(f"--option takes NAME=VALUE, not {item!r}")
        options.update(parse_option_text(item))
    return options


MAX_JSON = 100_000  # characters: a table's document is a few hundred


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def read_json(text: str) -> Any:
    """The document, or RequestError saying what is wrong with it: not JSON, too long,
    nested too deep (Python's parser recurses), a number too long to read, or the
    non-standard ``NaN``/``Infinity`` Python would otherwise accept."""
    if len(text) > MAX_JSON:
        raise RequestError(f"the document is too long (at most {MAX_JSON} characters)")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RequestError(f"not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except RecursionError:
        raise RequestError("not valid JSON here: nested too deeply") from None
    except ValueError as exc:  # NaN/Infinity, or an integer of thousands of digits
        raise RequestError(f"not valid JSON here: {exc}") from None


def run_json(stdin_text: str) -> tuple[int, dict[str, Any]]:
    """The answer to one JSON document: (0, the result) or (2, {"error": why})."""
    try:
        result = score_table(request_from_json(read_json(stdin_text)))
    except (RequestError, HandError, NotationError, OptionError) as exc:
        return EXIT_BAD_INPUT, {"error": str(exc)}
    return 0, result_to_json(result)


def run_text(args: argparse.Namespace) -> tuple[int, str]:
    if not args.hand:
        return EXIT_BAD_INPUT, "error: give a hand in quotes (or --json); see --help"
    try:
        seat = seat_of(args.seat, "--seat")
        round_wind = seat_of(args.round, "--round")
        parsed = parse_hand(args.hand)
        players = [SeatHand(seat, parsed.hand)]
        # The other seats hold hands scoring nothing unless described: settle against them.
        request = TableRequest(
            args.rules,
            _options(args),
            round_wind,
            tuple(players),
            seat if parsed.win else None,
            parsed.win,
            renchon=args.renchon,
        )
        result = score_table(request)
    except (RequestError, HandError, NotationError, OptionError) as exc:
        return EXIT_BAD_INPUT, f"error: {exc}"
    score = result.scores[seat]
    role = "winning" if parsed.win else "losing"
    out = [
        f"{RULESETS[args.rules].title}",
        f"{SEAT_LETTERS[seat]} seat, {SEAT_LETTERS[round_wind]} round, {role} hand: "
        f"{_describe(parsed.hand)}",
        "",
        score.render(),
    ]
    if score.arrangement:
        out += ["", "Read as: " + "; ".join(score.arrangement)]
    if result.payments:
        out += ["", "Payments (the other hands scoring nothing):"]
        for p in result.payments:
            out.append(f"  {SEAT_LETTERS[p.payer]} pays {SEAT_LETTERS[p.payee]} {p.amount:>8}")
        out.append(
            "  Net: " + ", ".join(f"{SEAT_LETTERS[s]} {n:+d}" for s, n in result.net.items())
        )
    return 0, "\n".join(out)


def _describe(hand: Hand) -> str:
    from bot.rules.notation import format_hand

    return format_hand(hand)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.json:
        status, doc = run_json(sys.stdin.read())
        print(json.dumps(doc, indent=2))
        return status
    status, text = run_text(args)
    print(text, file=sys.stderr if status else sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
