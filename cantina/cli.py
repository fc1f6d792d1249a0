"""The `cantina` command line.

Kept free of heavy imports: each command imports what it needs when it runs, so
`cantina --version` and the local start path never pay for what only other commands use.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cantina

DESCRIPTION = """\
Cantina: chance-cube dice games from a space cantina, in your terminal.
Three games: Vigo's Favor (vigo), Val-Des (valdes) and Victim! (victim)."""

GAME_IDS = ("vigo", "valdes", "victim")
VIGO_VARIANTS = {"rising-stakes": "rising_stakes", "house-vigo": "house_vigo", "mercy": "mercy"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cantina", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cantina {cantina.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def table_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("game", choices=GAME_IDS, help="which game")
        sub.add_argument(
            "--seats",
            required=True,
            help="one temperament per seat, comma-separated (see `cantina temperaments`)",
        )
        sub.add_argument("--seed", type=int, help="seed for the table's dice (default: random)")
        sub.add_argument(
            "--variants",
            default="",
            help="Vigo's Favor variants, comma-separated: " + ", ".join(VIGO_VARIANTS),
        )
        sub.add_argument("--ante", type=int, default=1, help="Val-Des ante (default 1)")

    sim = commands.add_parser("sim", help="play many AI-only games and report the results")
    table_options(sim)
    sim.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    sim.add_argument("--json", action="store_true", help="print one JSON object and nothing else")

    watch = commands.add_parser("watch", help="watch one AI-only game, narrated move by move")
    table_options(watch)
    watch.add_argument(
        "--delay", type=float, default=0.6, help="seconds between lines (default 0.6)"
    )

    commands.add_parser("temperaments", help="list the AI temperaments")

    play = commands.add_parser("play", help="go straight to a table (no arguments: the menu)")
    play.add_argument("game", choices=GAME_IDS, help="which game")
    play.add_argument(
        "--seats",
        help="`you` for a person (or `human:Name`), else a temperament; default: you and AIs",
    )
    play.add_argument("--seed", type=int, help="seed for the table's dice (default: random)")
    play.add_argument("--variants", default="", help="Vigo's Favor variants, comma-separated")
    play.add_argument("--ante", type=int, default=1, help="Val-Des ante (default 1)")

    campaigns = commands.add_parser("campaigns", help="list the saved campaigns")
    resume = commands.add_parser("resume", help="open a saved campaign where it stopped")
    resume.add_argument("name", help="the campaign's name (or its file name)")
    replay = commands.add_parser("replay", help="replay a round of a campaign, event by event")
    replay.add_argument("name", help="the campaign's name (or its file name)")
    replay.add_argument(
        "round", nargs="?", type=int, help="which round, game or match (default: the last)"
    )
    replay.add_argument(
        "--delay", type=float, default=0.6, help="seconds between lines (default 0.6)"
    )
    serve = commands.add_parser("serve", help="host the cantina over SSH")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=2222, help="port to listen on (default 2222)")
    serve.add_argument(
        "--authorized-keys", metavar="FILE", type=Path, help="the public keys admitted"
    )
    serve.add_argument("--open", action="store_true", help="admit any key")
    serve.add_argument("--guests", action="store_true", help="admit clients with no key")
    serve.add_argument(
        "--host-key", metavar="FILE", type=Path, help="the host key (default: made once, kept)"
    )
    serve.add_argument("--max-sessions", type=int, default=64, help="sessions at once (default 64)")
    for sub in (parser, play, campaigns, resume, replay, serve):
        sub.add_argument(
            "--save-dir",
            metavar="DIR",
            default=None if sub is parser else argparse.SUPPRESS,
            help="where campaigns are saved (default: $CANTINA_SAVE_DIR, else the user "
            "data folder)",
        )
    return parser


DEFAULT_PLAY_SEATS = {
    "vigo": "you,Expert,Bold,Cautious",
    "valdes": "you,Expert,Superstitious",
    "victim": "you,Expert,Treacherous",
}


def run_app(args: argparse.Namespace, *, table: bool = False, resume: Path | None = None) -> int:
    """Open the cantina: the menu, a table set from `cantina play`'s arguments, or a
    saved campaign."""
    from cantina.app import CantinaApp

    start = None
    if table:
        from cantina.games.table import checked
        from cantina.seating import TableSetup, seats_from_text

        try:
            seats = seats_from_text(args.seats or DEFAULT_PLAY_SEATS[args.game])
            settings = checked(table_settings(args.game, len(seats), args))
        except ValueError as err:
            raise SystemExit(f"cantina: {err}") from None
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
        start = TableSetup(args.game, settings, seats, seed)
    CantinaApp(start=start, resume=resume, save_dir=save_folder(args)).run()
    return 0


def save_folder(args: argparse.Namespace) -> Path:
    from cantina.campaign.store import save_dir

    return save_dir(args.save_dir)


def table_settings(game: str, seats: int, args: argparse.Namespace) -> Any:
    """The settings a command-line table gets: the defaults, plus what was asked for."""
    from cantina.games import GAMES

    settings_type = GAMES[game].settings
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if game == "vigo":
        unknown = [v for v in variants if v not in VIGO_VARIANTS]
        if unknown:
            raise SystemExit(
                f"cantina: unknown variant {unknown[0]!r}; choose from " + ", ".join(VIGO_VARIANTS)
            )
        return settings_type(seats=seats, **{VIGO_VARIANTS[v]: True for v in variants})
    if variants:
        raise SystemExit("cantina: --variants applies to Vigo's Favor only")
    if game == "valdes":
        return settings_type(seats=seats, ante=args.ante)
    if seats != 3:
        raise SystemExit(f"cantina: Victim! is for exactly 3 seats, not {seats}")
    return settings_type()


def parse_seats(text: str) -> list[Any]:
    from cantina.ai.temperament import temperament

    try:
        return [temperament(name) for name in text.split(",") if name.strip()]
    except ValueError as err:
        raise SystemExit(f"cantina: {err}") from None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except BrokenPipeError:  # `cantina sim ... | head`: the reader left, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        return 141


def run(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return run_app(args)
    if args.command == "play":
        return run_app(args, table=True)
    if args.command == "campaigns":
        from cantina.campaign.commands import list_campaigns

        return list_campaigns(save_folder(args))
    if args.command == "resume":
        from cantina.campaign.store import Store

        try:
            path = Store(save_folder(args)).find(args.name)
        except LookupError as err:
            raise SystemExit(f"cantina: {err}; `cantina campaigns` lists them") from None
        return run_app(args, resume=path)
    if args.command == "replay":
        from cantina.campaign.commands import replay

        return replay(save_folder(args), args.name, args.round, args.delay)
    if args.command == "serve":
        from cantina.ssh.cli import serve_command  # asyncssh loads for this command only

        return serve_command(args)
    if args.command == "temperaments":
        from cantina.ai.temperament import temperaments

        for t in temperaments().values():
            print(f"{t.name:<14} {t.description}")
        return 0
    from cantina.games.table import checked

    seats = parse_seats(args.seats)
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    try:
        settings = checked(table_settings(args.game, len(seats), args))
    except ValueError as err:
        raise SystemExit(f"cantina: {err}") from None
    if args.command == "sim":
        from cantina.sim_report import run_sim

        return run_sim(args, seats, settings)
    from cantina.watch import watch

    return watch(args.game, seats, settings, args.seed, args.delay)
