"""`cantina sim`: a rich progress bar and tables on a terminal, or one JSON object."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from cantina.ai.temperament import Temperament
from cantina.games import GAMES
from cantina.sim import SimResult, simulate


def run_sim(args: argparse.Namespace, seats: list[Temperament], settings: Any) -> int:
    if args.games < 1:
        raise SystemExit("cantina: --games must be at least 1")
    if args.json:
        result = simulate(args.game, seats, args.games, args.seed, settings)
        json.dump(result.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0
    console = Console()
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
        )
    print_report(console, result)
    return 0


def print_report(console: Console, result: SimResult) -> None:
    data = result.to_json()
    info = GAMES[result.game]
    unit = "lap" if result.game == "vigo" else info.unit
    table = Table(
        title=f"{info.title}: {result.games:,} {unit}{'s' if result.games != 1 else ''}, "
        f"seed {result.seed}"
    )
    for column in ("entry", "temperament", "wins", "win rate", "95% interval"):
        table.add_column(column, justify="left" if column == "temperament" else "right")
    table.add_column("net (match stake 1)" if result.game == "victim" else "net credits")
    table.add_column("net per game (95% interval)", justify="right")
    for number, seat in enumerate(data["seats"], start=1):
        low, high = seat["win_rate_ci95"]
        table.add_row(
            str(number),
            seat["temperament"],
            f"{seat['wins']:,}",
            f"{seat['win_rate']:.1%}",
            f"{low:.1%} to {high:.1%}",
            f"{seat['net']:+,}",
            "{:+.2f} ({:+.2f} to {:+.2f})".format(*seat["net_per_game"]),
        )
    console.print(table)

    rates = [name for name in data["seats"][0]["behaviour"]]
    behaviour = Table(title="How each entry played")
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

    stats = Table(title="Game statistics", show_header=False)
    for name, value in data["stats"].items():
        shown = f"{value:,.3f}" if isinstance(value, float) else f"{value:,}"
        stats.add_row(name.replace("_", " "), shown)
    console.print(stats)
