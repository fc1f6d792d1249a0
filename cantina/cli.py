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
from cantina.games import GAMES, GameInfo, Setting

DESCRIPTION = "Cantina: chance-cube dice games from a space cantina, in your terminal.\n" + (
    "Games: " + ", ".join(f"{info.title} ({info.id})" for info in GAMES.values()) + "."
)


def settings_flags() -> dict[str, tuple[Setting, list[GameInfo]]]:
    """Every number a table's settings take from the command line (`--ante`), with the
    games that have it, from the registry."""
    flags: dict[str, tuple[Setting, list[GameInfo]]] = {}
    for info in GAMES.values():
        for setting in info.choices():
            if setting.kind is int:
                flags.setdefault(setting.name, (setting, []))[1].append(info)
    return flags


def variant_names(info: GameInfo) -> dict[str, tuple[str, bool]]:
    """The words `--variants` takes for a game: each yes-or-no setting by its flag name
    (on) and with `no-` before it (off)."""
    names: dict[str, tuple[str, bool]] = {}
    for setting in info.choices():
        if setting.kind is bool:
            names[setting.flag] = (setting.name, True)
            names[f"no-{setting.flag}"] = (setting.name, False)
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cantina", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cantina {cantina.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def settings_options(sub: argparse.ArgumentParser) -> None:
        """The table's settings, from the games' registry."""
        variants = "; ".join(
            f"{info.title}: {', '.join(n for n in variant_names(info) if not n.startswith('no-'))}"
            for info in GAMES.values()
            if variant_names(info)
        )
        sub.add_argument(
            "--variants",
            default="",
            help=f"variants on (or off, with no- before one), comma-separated: {variants}",
        )
        for setting, infos in settings_flags().values():
            games = ", ".join(info.title for info in infos)
            what = setting.help.rstrip(".")
            sub.add_argument(
                f"--{setting.flag}",
                type=int,
                default=None,
                metavar="N",
                help=f"{games}: {what[:1].lower()}{what[1:]} "
                f"({setting.low} to {setting.high}; default {setting.default})",
            )

    def table_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("game", choices=list(GAMES), help="which game")
        sub.add_argument(
            "--seats",
            required=True,
            help="one temperament per seat, comma-separated (see `cantina temperaments`)",
        )
        sub.add_argument("--seed", type=int, help="seed for the table's dice (default: random)")
        settings_options(sub)

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
    play.add_argument("game", choices=list(GAMES), help="which game")
    play.add_argument(
        "--seats",
        help="`you` for a person (or `human:Name`), else a temperament; default: you and AIs",
    )
    play.add_argument("--seed", type=int, help="seed for the table's dice (default: random)")
    settings_options(play)

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


def run_app(args: argparse.Namespace, *, table: bool = False, resume: Path | None = None) -> int:
    """Open the cantina: the menu, a table set from `cantina play`'s arguments, or a
    saved campaign."""
    from cantina.app import CantinaApp

    start = None
    if table:
        from cantina.games.table import checked
        from cantina.seating import TableSetup, seats_from_text

        try:
            seats = seats_from_text(args.seats or GAMES[args.game].play_seats)
            settings = checked(table_settings(args.game, len(seats), args))
        except ValueError as err:
            raise SystemExit(f"cantina: {err}") from None
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
        start = TableSetup(args.game, settings, seats, seed)
    app = CantinaApp(start=start, resume=resume, save_dir=save_folder(args))
    app.run()
    return app.return_code or 0


def save_folder(args: argparse.Namespace) -> Path:
    from cantina.campaign.store import save_dir

    return save_dir(args.save_dir)


def table_settings(game: str, seats: int, args: argparse.Namespace) -> Any:
    """The settings a command-line table gets: its game's table defaults, plus what was
    asked for (unchecked: `checked` applies the settings' bounds)."""
    info = GAMES[game]
    low, high = info.seats
    if not low <= seats <= high:
        many = f"exactly {low}" if low == high else f"{low} to {high}"
        raise SystemExit(f"cantina: {info.title} is for {many} seats, not {seats}")
    chosen: dict[str, Any] = {}
    own = {setting.name for setting in info.choices()}
    for name, (setting, infos) in settings_flags().items():
        value = getattr(args, name, None)
        if value is None:
            continue
        if name not in own:
            games = " and ".join(i.title for i in infos)
            raise SystemExit(f"cantina: --{setting.flag} applies to {games} only")
        chosen[name] = value
    names = variant_names(info)
    for word in (w.strip() for w in args.variants.split(",") if w.strip()):
        if word not in names:
            known = ", ".join(n for n in names if not n.startswith("no-")) or "none"
            raise SystemExit(
                f"cantina: unknown variant {word!r} for {info.title}; its variants: {known}"
            )
        name, on = names[word]
        chosen[name] = on
    return info.settings_for(seats, **chosen)


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
