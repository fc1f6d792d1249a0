"""`cantina sim`: a rich progress bar and tables on a terminal, or one JSON object."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from cantina.ai.temperament import Temperament
from cantina.games import GAMES
from cantina.sim import SimResult, simulate


def run_sim(args: argparse.Namespace, seats: list[Temperament], settings: Any) -> int:
    """Play the games and report them; Ctrl-C stops after the game in play and reports
    the games played so far (status 130, as for any interrupted command)."""
    if args.games < 1:
        raise SystemExit("cantina: --games must be at least 1")
    console = Console()
    with stop_on_interrupt() as stopped:
        if args.json:
            result = simulate(args.game, seats, args.games, args.seed, settings, stop=stopped)
        else:
            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            ) as progress:
                task = progress.add_task(f"{GAMES[args.game].title}", total=args.games)
                result = simulate(
                    args.game,
                    seats,
                    args.games,
                    args.seed,
                    settings,
                    progress=lambda done: progress.update(task, completed=done),
                    stop=stopped,
                )
    if args.json:
        json.dump(result.to_json(), sys.stdout)
        sys.stdout.write("\n")
    elif result.games:
        print_report(console, result)
    if not result.stopped:
        return 0
    sys.stdout.flush()
    print(stopped_line(result.game, result.games, result.requested), file=sys.stderr)
    return 130


def stopped_line(game: str, played: int, requested: int) -> str:
    """What a run stopped by Ctrl-C says on stderr: how many of how many were played."""
    return f"cantina: stopped by Ctrl-C after {played:,} of {requested:,} {units_of(game)}" + (
        f"; the results are for those {played:,}" if played else ", none to report"
    )


@contextlib.contextmanager
def stop_on_interrupt() -> Iterator[Callable[[], bool]]:
    """While inside, the first Ctrl-C (SIGINT) only asks the run to stop, which the
    returned callable tells; a second one interrupts at once, as usual."""
    asked = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield asked.is_set  # only the main thread may handle signals
        return

    previous = signal.getsignal(signal.SIGINT)
    if previous is None:  # set outside Python: give Python's own back
        previous = signal.default_int_handler

    def on_interrupt(signum: int, frame: Any) -> None:
        asked.set()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield asked.is_set
    finally:
        signal.signal(signal.SIGINT, previous)


def unit_of(game: str) -> str:
    """What one simulated game is: a lap at Vigo's Favor (`cantina.sim`), else the unit."""
    return "lap" if game == "vigo" else GAMES[game].unit


def units_of(game: str) -> str:
    """What many simulated games are called: laps, games or matches."""
    return "laps" if game == "vigo" else GAMES[game].units


def report_table(title: str) -> Table:
    """A table of the reports: ruled under its header only, so that eight seats and
    their intervals fit an 80-column terminal without wrapping a cell."""
    return Table(
        title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True
    )


def rate_interval(low: float, high: float) -> str:
    """A rate's 95% interval, compact: 16.4-27.7% (a Wilson interval is not symmetric)."""
    return f"{low:.1%}".removesuffix("%") + f"\N{EN DASH}{high:.1%}"


def plus_minus(mean: float, low: float, high: float) -> str:
    """A mean and its symmetric 95% interval: +0.81 ± 1.12."""
    return f"{mean:+.2f} ± {(high - low) / 2:.2f}"


def print_report(console: Console, result: SimResult) -> None:
    data = result.to_json()
    info = GAMES[result.game]
    unit = unit_of(result.game)
    stopped = f" (stopped; {result.requested:,} asked for)" if result.stopped else ""
    units = unit if result.games == 1 else units_of(result.game)
    staked = " at stake 1" if result.game == "victim" else ""
    table = report_table(
        f"{info.title}: {result.games:,} {units}{staked}{stopped}, seed {result.seed}"
    )
    for column in ("entry", "temperament", "wins", "win rate", "95% interval"):
        table.add_column(column, justify="left" if column == "temperament" else "right")
    table.add_column("net" if result.game == "victim" else "net credits", justify="right")
    table.add_column(f"net a {unit} (95%)", justify="right")
    for number, seat in enumerate(data["seats"], start=1):
        table.add_row(
            str(number),
            seat["temperament"],
            f"{seat['wins']:,}",
            f"{seat['win_rate']:.1%}",
            rate_interval(*seat["win_rate_ci95"]),
            f"{seat['net']:+,}",
            plus_minus(*seat["net_per_game"]),
        )
    console.print(table)

    rates = [name for name in data["seats"][0]["behaviour"]]
    behaviour = report_table("How each entry played")
    behaviour.add_column("entry", justify="right")
    behaviour.add_column("temperament")
    for name in rates:
        behaviour.add_column(name.replace("_", " "), justify="right")
    for number, seat in enumerate(data["seats"], start=1):
        behaviour.add_row(
            str(number),
            seat["temperament"],
            *(f"{seat['behaviour'].get(name, 0.0):.2f}" for name in rates),
        )
    console.print(behaviour)

    stats = report_table("Game statistics")
    stats.show_header = False
    for name, value in data["stats"].items():
        shown = f"{value:,.3f}" if isinstance(value, float) else f"{value:,}"
        stats.add_row(name.replace("_", " "), shown)
    console.print(stats)
