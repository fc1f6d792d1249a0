"""The `cantina` command line.

Kept free of heavy imports: each command imports what it needs when it runs, so
`cantina --version` and the local start path never pay for what only other commands use.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cantina
from cantina.arguments import (
    MAX_BURST,
    MAX_DELAY,
    MAX_GAMES,
    MAX_IDLE,
    MAX_JOBS,
    MAX_SEED,
    MAX_SESSIONS,
    MAX_STRIKE_WAIT,
    MAX_STRIKES,
    MAX_TABLES,
    MAX_WAIT,
    MAX_WORKERS,
    MOST_TABLES,
    Parser,
    bounds,
    fail,
    not_empty,
    one_line,
    refuse,
    seconds,
    share,
    shown,
    startups,
    store_from_environment,
    store_url,
    whole,
)
from cantina.games import GAMES, GameInfo, Setting

DESCRIPTION = "Cantina: chance-cube dice games from a space cantina, in your terminal.\n" + (
    "Games: " + ", ".join(f"{info.title} ({info.id})" for info in GAMES.values()) + "."
)

SEED_HELP = f"seed for the table's dice, 0 to {MAX_SEED:,} (default: random)"
DELAY_HELP = f"seconds between lines (default 0.6, at most {MAX_DELAY:g})"


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


MEASURED_GAMES = ("vigo", "victim")
"""The games whose decisions can cost anything (not Val-Des: every call is worth 1/2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="cantina", description=DESCRIPTION)
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
                type=whole(None, None),
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
        sub.add_argument("--seed", type=whole(0, MAX_SEED), help=SEED_HELP)
        settings_options(sub)

    sim = commands.add_parser("sim", help="play many AI-only games and report the results")
    table_options(sim)
    sim.add_argument(
        "--games",
        type=whole(1, MAX_GAMES),
        default=1000,
        help=f"how many games (default 1000, at most {MAX_GAMES:,}); Ctrl-C stops early and "
        "reports those played",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object and nothing else")

    tourney = commands.add_parser(
        "tournament",
        help="a round robin of AI temperaments over every seating, on every core, with ratings",
    )
    tourney.add_argument("game", choices=list(GAMES), help="which game")
    tourney.add_argument(
        "--temperaments",
        type=temperament_list,
        default=None,
        help="the temperaments entered, comma-separated, at least 3 (default: all; see "
        "`cantina temperaments`); tables are 3 seats, every ordered seating in turn",
    )
    tourney.add_argument(
        "--games",
        type=whole(1, MAX_GAMES),
        required=True,
        help=f"how many games in all (at most {MAX_GAMES:,}), game i at seating i mod the "
        "number of seatings; Ctrl-C stops early and reports those played",
    )
    tourney.add_argument(
        "--jobs",
        type=whole(1, MAX_JOBS),
        default=None,
        help=f"processes to play on (default: the machine's cores, {os.cpu_count() or 1}); "
        "the results are the same for any number",
    )
    tourney.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        help=f"the seed each game's own seed is made from, 0 to {MAX_SEED:,} (default: random)",
    )
    tourney.add_argument(
        "--json", action="store_true", help="print one JSON object and nothing else"
    )
    tourney.add_argument(
        "--plot",
        action="store_true",
        help="after the tables, show the ratings and their intervals as a chart (q closes it)",
    )
    settings_options(tourney)

    watch = commands.add_parser("watch", help="watch one AI-only game, narrated move by move")
    table_options(watch)
    watch.add_argument("--delay", type=seconds(0, MAX_DELAY), default=0.6, help=DELAY_HELP)

    commands.add_parser("temperaments", help="list the AI temperaments")
    measured = commands.add_parser(
        "analyse-temperaments",
        help="measure each temperament's equity given up per decision, against Experts",
    )
    measured.add_argument(
        "games_played",
        nargs="*",
        metavar="GAME",
        help=f"which games ({', '.join(MEASURED_GAMES)}; default both)",
    )
    measured.add_argument(
        "--games",
        type=whole(2, MAX_GAMES),
        default=500,
        metavar="N",
        help=f"games per temperament and game, 2 to {MAX_GAMES:,} (default 500)",
    )
    measured.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        default=1,
        help=f"the seed every game's dice are made from, 0 to {MAX_SEED:,} (default 1, so "
        "runs compare)",
    )
    measured.add_argument(
        "--temperaments",
        type=temperament_list,
        default=None,
        metavar="A,B",
        help="comma-separated temperaments to measure, each once (default: every one; see "
        "`cantina temperaments`)",
    )

    play = commands.add_parser("play", help="go straight to a table (no arguments: the menu)")
    play.add_argument("game", choices=list(GAMES), help="which game")
    play.add_argument(
        "--seats",
        help="`you` for a person (or `human:Name`), else a temperament; default: you and AIs",
    )
    play.add_argument("--seed", type=whole(0, MAX_SEED), help=SEED_HELP)
    settings_options(play)

    campaigns = commands.add_parser(
        "campaigns", help="list the saved campaigns (or import one with --import FILE)"
    )
    campaigns.add_argument(
        "--import",
        dest="import_file",
        metavar="FILE",
        type=not_empty,
        help="copy a campaign's save into the save folder (checked like any save, under a "
        "name and a file name of its own; FILE is left as it is)",
    )
    resume = commands.add_parser("resume", help="open a saved campaign where it stopped")
    resume.add_argument("name", type=not_empty, help="the campaign's name (or its file name)")
    replay = commands.add_parser("replay", help="replay a round of a campaign, event by event")
    replay.add_argument("name", type=not_empty, help="the campaign's name (or its file name)")
    replay.add_argument(
        "round",
        nargs="?",
        type=whole(1, None),
        help="which round, game or match (default: the last)",
    )
    replay.add_argument("--delay", type=seconds(0, MAX_DELAY), default=None, help=DELAY_HELP)
    replay.add_argument(
        "--analyse",
        action="store_true",
        help="print what each decision cost and what the dice gave each seat, not the story",
    )
    serve = commands.add_parser("serve", help="host the cantina over SSH")
    serve.add_argument(
        "--host",
        type=not_empty,
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1)",
    )
    serve.add_argument(
        "--port",
        type=whole(0, 65535),
        default=2222,
        help="port to listen on (default 2222; 0 takes any free port, which it prints)",
    )
    serve.add_argument(
        "--authorized-keys",
        metavar="FILE",
        type=lambda text: Path(not_empty(text)),
        help="the public keys admitted",
    )
    serve.add_argument("--open", action="store_true", help="admit any key")
    serve.add_argument("--guests", action="store_true", help="admit clients with no key")
    serve.add_argument(
        "--host-key",
        metavar="FILE",
        type=lambda text: Path(not_empty(text)),
        help="the host key (default: made once, kept)",
    )
    serve.add_argument(
        "--max-sessions",
        type=whole(1, MAX_SESSIONS),
        default=64,
        help=f"sessions at once (default 64, at most {MAX_SESSIONS})",
    )
    serve.add_argument(
        "--per-address",
        metavar="N",
        type=whole(1, MAX_SESSIONS),
        default=8,
        help="sessions at once from one address (default 8)",
    )
    serve.add_argument(
        "--tables-per-player",
        metavar="N",
        type=whole(1, MAX_TABLES),
        default=2,
        help="shared tables one player may have open at once (default 2)",
    )
    serve.add_argument(
        "--max-tables",
        metavar="N",
        type=whole(1, MOST_TABLES),
        default=MAX_TABLES,
        help=(
            f"shared tables open at once, in all (default {MAX_TABLES}); with --store redis,"
            " give every host of the cantina the same"
        ),
    )
    serve.add_argument(
        "--away-grace",
        metavar="SECONDS",
        type=seconds(0, MAX_WAIT),
        default=60.0,
        help="how long a shared table waits for a player who left before an AI plays "
        "their seat (default 60)",
    )
    serve.add_argument(
        "--idle-timeout",
        metavar="SECONDS",
        type=seconds(10, MAX_IDLE),
        default=1800.0,
        help="a session with no keystroke for this long is ended (default 1800)",
    )
    serve.add_argument(
        "--login-grace",
        metavar="SECONDS",
        type=seconds(1, MAX_WAIT),
        default=30.0,
        help="time to log in, from connecting (default 30)",
    )
    serve.add_argument(
        "--startups-per-address",
        metavar="N",
        type=whole(1, MAX_SESSIONS),
        default=8,
        help="connections not yet logged in at once from one address (default 8)",
    )
    serve.add_argument(
        "--max-startups",
        metavar="START:RATE:FULL",
        type=startups,
        default="16:30:64",
        help="connections not yet logged in, over all addresses: from START on, a new one "
        "is refused with a chance of RATE percent, rising to certain at FULL (OpenSSH's "
        "MaxStartups; default 16:30:64)",
    )
    serve.add_argument(
        "--session-share",
        metavar="SECONDS",
        type=share(0.0),
        default=0.05,
        help="seconds of the host's time one session's keys may cost a second, past "
        "which its input waits (default 0.05; 0 for no limit)",
    )
    serve.add_argument(
        "--address-share",
        metavar="SECONDS",
        type=share(0.01),
        default=0.08,
        help="the same for all the sessions of one address together (default 0.08)",
    )
    serve.add_argument(
        "--burst",
        metavar="SECONDS",
        type=seconds(0.01, MAX_BURST),
        default=0.3,
        help="seconds of the host's time a session (or address) may use at once before "
        "its share holds it (default 0.3)",
    )
    serve.add_argument(
        "--strikes",
        metavar="N",
        type=whole(0, MAX_STRIKES),
        default=2,
        help="sessions of one address ended for abuse (bad input, a flood of window "
        "changes) or sending input the host cannot read, within a minute, at which its new "
        "connections are refused for a while (default 2; 0: never)",
    )
    serve.add_argument(
        "--strike-wait",
        metavar="SECONDS",
        type=seconds(1, MAX_STRIKE_WAIT),
        default=30.0,
        help="how long such an address is refused the first time; doubled each time it "
        "comes back for more, up to ten times this (default 30)",
    )
    serve.add_argument(
        "--store",
        metavar="URL",
        type=store_url,
        default=None,
        help="where shared tables are kept: memory (they end with the host) or "
        "redis://HOST:PORT/DB, where they outlive the host (default: $CANTINA_STORE, else "
        "memory; the environment keeps a Redis password out of the process list)",
    )
    serve.add_argument(
        "--workers",
        metavar="N",
        type=whole(1, MAX_WORKERS),
        default=1,
        help=f"host processes sharing the port, one host key and the Redis store (default 1, "
        f"at most {MAX_WORKERS}: 4 a core; more than 1 needs --store redis://...)",
    )
    for sub in (parser, play, campaigns, resume, replay, serve):
        sub.add_argument(
            "--save-dir",
            metavar="DIR",
            type=not_empty,
            default=None if sub is parser else argparse.SUPPRESS,
            help="where campaigns are saved (default: $CANTINA_SAVE_DIR, else the user "
            "data folder)",
        )
    return parser


NO_TERMINAL = (
    "the cantina is played in a terminal, and this command's input or output is not one"
    " (sim, watch, tournament and replay print to any output)"
)
"""Said instead of opening the app with no terminal to draw in or read keys from: it drew
its frames into a redirected file, and ran on, unseen, until killed."""


NO_CHART = (
    "--plot draws its chart on the terminal (on stderr, q from stdin closes it), and this "
    "command's input or stderr is not one: leave --plot out for the tables alone"
)
"""Said before a tournament with `--plot` is played where the chart could not be shown:
it played every game, then drew the chart into a file and waited for a q that could not
come, until killed (found in localplay: `cantina tournament vigo --plot < /dev/null`)."""


def run_app(args: argparse.Namespace, *, table: bool = False, resume: Path | None = None) -> int:
    """Open the cantina: the menu, a table set from `cantina play`'s arguments, or a
    saved campaign."""
    folder = save_folder(args)
    start = play_setup(args) if table else None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail(NO_TERMINAL)
    from cantina.app import CantinaApp

    app = CantinaApp(start=start, resume=resume, save_dir=folder)
    app.run()
    return app.return_code or 0


def play_setup(args: argparse.Namespace) -> Any:
    """The table `cantina play`'s arguments set (a TableSetup); one line, status 2, for
    seats or settings the game does not take."""
    from cantina.seating import TableSetup, seats_from_text

    words = seat_words(args.seats or GAMES[args.game].play_seats, GAMES[args.game])
    try:
        seats = seats_from_text(",".join(words))
    except ValueError as err:
        refuse(str(err))
    settings = table_ready(args.game, len(seats), args)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    return TableSetup(args.game, settings, seats, seed)


def save_folder(args: argparse.Namespace) -> Path:
    """The campaigns' folder (`--save-dir`, else CANTINA_SAVE_DIR, else the user's);
    refused when something other than a folder is there."""
    from cantina.campaign.store import save_dir

    given = getattr(args, "save_dir", None)
    from_environment = os.environ.get("CANTINA_SAVE_DIR", "")
    if not given and from_environment and not from_environment.strip():
        # as `--save-dir " "` is refused: it named a folder of spaces in the current one
        fail("CANTINA_SAVE_DIR is blank: name a folder, or unset it for the user data folder")
    folder = save_dir(given)
    if folder.exists() and not folder.is_dir():
        where = "--save-dir" if given else "the save folder"
        if not given and os.environ.get("CANTINA_SAVE_DIR"):
            where = "CANTINA_SAVE_DIR"
        fail(f"{where} {folder} is not a folder")
    return folder


def table_settings(game: str, seats: int, args: argparse.Namespace) -> Any:
    """The settings a command-line table gets: its game's table defaults, plus what was
    asked for, each within the bounds its settings struct declares."""
    info = GAMES[game]
    check_seat_count(info, seats)
    chosen: dict[str, Any] = {}
    own = {setting.name: setting for setting in info.choices()}
    for name, (setting, infos) in settings_flags().items():
        value = getattr(args, name, None)
        if value is None:
            continue
        if name not in own:
            games = " and ".join(i.title for i in infos)
            refuse(f"--{setting.flag} applies to {games} only")
        low, high = own[name].low, own[name].high
        if (low is not None and value < low) or (high is not None and value > high):
            refuse(f"--{setting.flag} must be {bounds(low, high)}, not {value}")
        chosen[name] = value
    names = variant_names(info)
    words = [w.strip() for w in args.variants.split(",")] if args.variants.strip() else []
    said: dict[str, str] = {}
    for word in words:
        if not word:
            refuse(f"--variants {shown(args.variants)} has an empty entry")
        if word not in names:
            known = ", ".join(n for n in names if not n.startswith("no-")) or "none"
            refuse(f"unknown variant {shown(word)} for {info.title}; its variants: {known}")
        name, on = names[word]
        if said.get(name, word) != word:
            refuse(f"--variants asks for both {said[name]} and {word}")
        said[name] = word
        chosen[name] = on
    return info.settings_for(seats, **chosen)


def table_ready(game: str, seats: int, args: argparse.Namespace) -> Any:
    """The settings a command-line table gets, checked as its games will use them: each
    within its bounds (`checked`), and together able to start a game (Val-Des's banks
    must cover its ante: `--starting-bank 0` was a traceback from the first game of a
    sim or tournament). One line, status 2, for settings that cannot."""
    from cantina.games.dice import Dice
    from cantina.games.table import checked

    try:
        settings = checked(table_settings(game, seats, args))
        GAMES[game].new(settings, Dice(0))
    except ValueError as err:
        refuse(str(err))
    return settings


def temperament_list(text: str) -> list[Any]:
    """An argparse type: `--temperaments`, each named once."""
    from cantina.ai.temperament import temperament

    words = [word.strip() for word in text.split(",")]
    if not any(words):
        raise argparse.ArgumentTypeError("names no temperaments")
    found = []
    for word in words:
        if not word:
            raise argparse.ArgumentTypeError(f"{shown(text)} has an empty entry")
        try:
            found.append(temperament(word))
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    names = [t.name for t in found]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"names {', '.join(twice)} more than once")
    return found


def run_tournament(args: argparse.Namespace) -> int:
    """`cantina tournament`: arguments checked (one line, status 2), then played."""
    from cantina.ai.temperament import temperaments
    from cantina.tournament import TABLE_SEATS

    players = args.temperaments or list(temperaments().values())
    seats = TABLE_SEATS[args.game]
    if len(players) < seats:
        refuse(
            f"--temperaments needs at least {seats} for {GAMES[args.game].title}'s tables of "
            f"{seats}, not {len(players)}"
        )
    if args.json and args.plot:
        refuse("--plot shows a chart on the terminal, which --json does not use")
    if args.plot and not (sys.stdin.isatty() and sys.stderr.isatty()):
        refuse(NO_CHART)
    settings = table_ready(args.game, seats, args)
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    if args.jobs is None:
        args.jobs = os.cpu_count() or 1
    from cantina.tournament_report import run_tournament as play

    status, result = play(args, players, settings)
    if args.plot and result.games:
        from screens.charts import RatingsApp

        RatingsApp(result).run()
    return status


def check_seat_count(info: GameInfo, seats: int, named: str = "") -> None:
    """`named` is the `--seats` text, quoted in the refusal: `--seats 4` names one seat
    called '4', and a player who meant four seats needs to be told how seats are given."""
    low, high = info.seats
    if not low <= seats <= high:
        many = f"exactly {low}" if low == high else f"{low} to {high}"
        how = f" (--seats {shown(named)}: name each seat, comma-separated)" if named else ""
        refuse(f"{info.title} is for {many} seats, not {seats}{how}")


def seat_words(text: str, info: GameInfo) -> list[str]:
    """`--seats`, one word a seat: none may be empty, and the game must take that many."""
    words = [word.strip() for word in text.split(",")]
    if words == [""]:
        refuse("--seats names no seats: give one a seat, comma-separated")
    for number, word in enumerate(words, start=1):
        if not word:
            refuse(f"--seats {shown(text)}: seat {number} of {len(words)} has no name")
    check_seat_count(info, len(words), text)
    return words


def parse_seats(text: str, info: GameInfo) -> list[Any]:
    """`--seats` for AI-only tables: a temperament a seat."""
    from cantina.ai.temperament import temperament
    from cantina.seating import PERSON_WORDS

    words = seat_words(text, info)
    for word in words:
        if word.partition(":")[0].lower() in PERSON_WORDS:
            refuse(
                f"--seats {shown(word)} is a person's seat: sim and watch seat AIs "
                "only (`cantina play` seats people); give a temperament a seat"
            )
    try:
        return [temperament(word) for word in words]
    except ValueError as err:
        refuse(str(err))


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except BrokenPipeError:  # `cantina sim ... | head`: the reader left, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        return 141
    except SystemExit as stop:  # a command refused: its one line, whatever it quoted
        if not isinstance(stop.code, str):
            raise
        print(one_line(stop.code), file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: stopped as asked, which needs no traceback
        print("cantina: interrupted", file=sys.stderr)
        return 130
    except OSError as err:  # a folder or file the command could not use
        print(f"cantina: {one_line(str(err))}", file=sys.stderr)
        return 1


def measure_temperaments(args: argparse.Namespace) -> int:
    """`cantina analyse-temperaments`: the table of equity given up, game by game."""
    from cantina.measure import all_names, measure, table_lines
    from cantina.progress import measuring_bar

    names = [t.name for t in args.temperaments] if args.temperaments else all_names()
    games = args.games_played or list(MEASURED_GAMES)
    choose = f"choose from {', '.join(MEASURED_GAMES)}"
    for game in games:
        if game == "valdes":
            refuse(
                f"Val-Des has nothing to measure: every call is worth 1/2, so no "
                f"temperament gives up anything; {choose}"
            )
        if game not in MEASURED_GAMES:
            refuse(f"no game {shown(game)} to measure; {choose}")
    twice = sorted({game for game in games if games.count(game) > 1})
    if twice:
        refuse(f"{' and '.join(twice)} named more than once; name each game once")
    measures = []
    with measuring_bar(len(games) * len(names) * args.games) as step:
        for game in games:
            for name in names:
                measures.append(measure(game, name, args.games, args.seed, progress=step))
    chosen = f" --temperaments {','.join(names)}" if args.temperaments else ""
    print(
        f"cantina analyse-temperaments {' '.join(games)} --games {args.games} "
        f"--seed {args.seed}{chosen}"
    )
    print("\n".join(table_lines(measures)).rstrip("\n"))
    return 0


def run(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return run_app(args)
    if args.command == "play":
        return run_app(args, table=True)
    if args.command == "campaigns":
        from cantina.campaign.commands import import_campaign, list_campaigns

        if args.import_file is not None:
            return import_campaign(save_folder(args), Path(args.import_file))
        return list_campaigns(save_folder(args))
    if args.command == "resume":
        from cantina.campaign.commands import check_playable, find_save

        folder = save_folder(args)
        path = find_save(folder, args.name)
        check_playable(folder, path)
        return run_app(args, resume=path)
    if args.command == "replay":
        from cantina.campaign.commands import find_save, replay

        if args.analyse and args.delay is not None:
            refuse("--delay paces the story, which --analyse does not tell")
        path = find_save(save_folder(args), args.name)
        if args.analyse:
            from cantina.analysis_report import replay_analysis

            return replay_analysis(path, args.round)
        return replay(path, args.round, 0.6 if args.delay is None else args.delay)
    if args.command == "analyse-temperaments":
        return measure_temperaments(args)
    if args.command == "serve":
        if getattr(args, "save_dir", None) is not None:
            save_folder(args)
        if args.store is None:
            args.store = store_from_environment()
        from cantina.ssh.cli import serve_command  # asyncssh loads for this command only

        return serve_command(args)
    if args.command == "tournament":
        return run_tournament(args)
    if args.command == "temperaments":
        from cantina.ai.temperament import temperaments

        for t in temperaments().values():
            print(f"{t.name:<14} {t.description}")
        return 0
    info = GAMES[args.game]
    seats = parse_seats(args.seats, info)
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    settings = table_ready(args.game, len(seats), args)
    if args.command == "sim":
        from cantina.sim_report import run_sim

        return run_sim(args, seats, settings)
    from cantina.watch import watch

    return watch(args.game, seats, settings, args.seed, args.delay)
