"""`cantina tournament`: a rich progress bar on stderr and tables on stdout, or one JSON
object."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from cantina.ai.temperament import Temperament
from cantina.games import GAMES
from cantina.sim_report import (
    plus_minus,
    report_table,
    stop_on_interrupt,
    stopped_line,
    unit_of,
    units_of,
)
from cantina.tournament import TournamentResult, tournament


def run_tournament(
    args: argparse.Namespace, players: list[Temperament], settings: Any
) -> tuple[int, TournamentResult]:
    """Play the tournament and report it; Ctrl-C stops the games under way after they
    end and reports the games played so far (status 130).

    The progress bar is drawn from the progress callback, not by rich's refresh thread:
    with the `fork` start method a process with threads should not fork its workers."""
    console = Console()
    with stop_on_interrupt() as stopped:
        if args.json:
            result = tournament(
                args.game, players, args.games, args.seed, settings, args.jobs, stop=stopped
            )
        else:
            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
                auto_refresh=False,  # no drawing thread: worker processes may be forked
            ) as progress:
                task = progress.add_task(f"{GAMES[args.game].title} tournament", total=args.games)
                drawn = [0.0]

                def show(done: int) -> None:
                    progress.update(task, completed=done)
                    if time.monotonic() - drawn[0] >= 0.1:  # ten frames a second at most
                        progress.refresh()
                        drawn[0] = time.monotonic()

                result = tournament(
                    args.game,
                    players,
                    args.games,
                    args.seed,
                    settings,
                    args.jobs,
                    progress=show,
                    stop=stopped,
                )
    if args.json:
        json.dump(result.to_json(), sys.stdout)
        sys.stdout.write("\n")
    elif result.games:
        print_report(console, result)
    if not result.stopped:
        return 0, result
    sys.stdout.flush()
    print(stopped_line(result.game, result.games, result.requested), file=sys.stderr)
    return 130, result


def print_report(console: Console, result: TournamentResult) -> None:
    info = GAMES[result.game]
    unit = unit_of(result.game) if result.games == 1 else units_of(result.game)
    stopped = f" (stopped; {result.requested:,} asked for)" if result.stopped else ""
    table = report_table(
        f"{info.title} tournament: {result.games:,} {unit}"
        f"{stopped}, {result.seatings:,} seatings of {result.table_seats}, seed {result.seed}",
    )
    table.caption = (
        "Rating: Elo points above the field's average, from a fit of who won each "
        "game (multiplayer Bradley-Terry), with its 95% interval."
    )
    table.add_column("rank", justify="right")
    table.add_column("temperament")
    for column in ("rating", "95% interval", "games", "win rate", "net a game (95%)"):
        table.add_column(column, justify="right")
    for number, r in enumerate(result.ranked(), start=1):
        table.add_row(
            str(number),
            r.temperament,
            f"{r.rating:+.0f}",
            f"{r.low:+.0f} to {r.high:+.0f}",
            f"{r.games:,}",
            f"{r.wins / r.games:.1%}" if r.games else "-",
            plus_minus(*r.net_per_game),
        )
    console.print(table)
    uneven = seatings_note(result)
    if uneven:
        console.print(uneven)
    if result.no_winner:
        console.print(
            f"{result.no_winner:,} {units_of(result.game)} had no sole winner (a tie for the "
            "top bank) and count in games and nets, not in the ratings."
        )


def seatings_note(result: TournamentResult) -> str:
    """What a number of games that is not a multiple of the seatings does: some seatings
    played once more than the others (or not at all), so the temperaments met unevenly,
    which the games column shows but nothing said (60 Victim! matches: the Expert in 50
    of them, the Rookie in 15)."""
    rounds, extra = divmod(result.games, result.seatings)
    if not extra:
        return ""
    rest = "not at all" if rounds == 0 else times_word(rounds)
    unit = units_of(result.game)
    return (
        f"{extra:,} of the {result.seatings:,} seatings were played {times_word(rounds + 1)} "
        f"and the rest {rest}, so the temperaments met unevenly; {result.seatings:,} {unit} "
        "(or a multiple) play every seating alike."
    )


def times_word(times: int) -> str:
    return {1: "once", 2: "twice"}.get(times, f"{times:,} times")
