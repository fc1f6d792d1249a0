"""The temperaments measured: each one's average equity given up per decision, per game.

Each temperament sits at a table with two Experts for a Vigo's Favor lap or a Victim!
match, its seat moving round the table game by game so no seat's position favours it, and
every one of its decisions is valued by the analysis (`cantina.analysis`). The interval
is a 95% one across games: a game's decisions are not independent of one another, so the
games are the samples (a ratio estimate, total cost over total decisions, with its
delta-method variance).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cantina.ai.player import TableAI
from cantina.ai.temperament import Temperament, temperament, temperaments
from cantina.analysis import UNITS, analyse, faces_of, format_value
from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.table import Game, Move

SEATS = 3
MAX_DECISIONS = 100_000


@dataclass(frozen=True)
class Measure:
    """One temperament in one game: cost per decision and its interval."""

    game: str
    name: str
    games: int
    decisions: int
    mean: float
    low: float
    high: float


def ratio_interval(costs: Sequence[float], counts: Sequence[int]) -> tuple[float, float, float]:
    """Total cost over total decisions, and its 95% interval with games as the samples."""
    n = len(costs)
    total = sum(counts)
    if not total:
        return (0.0, 0.0, 0.0)
    ratio = sum(costs) / total
    if n < 2:
        return (ratio, ratio, ratio)
    mean_count = total / n
    spread = sum((c - ratio * k) ** 2 for c, k in zip(costs, counts, strict=True)) / (n - 1)
    half = 1.96 * math.sqrt(spread / n) / mean_count
    return (ratio, ratio - half, ratio + half)


Round = tuple[Game[Any], list[Move], list[list[str | int]]]
"""A state machine's start, its moves and each move's dice."""


def one_game(game_id: str, seats: Sequence[Temperament], seed: int) -> list[Round]:
    """An AI game from `seed`, as its rounds: a Vigo's Favor lap (every seat the Vigo
    once, VF-11), or one Victim! match."""
    info = GAMES[game_id]
    game = info.new(info.settings_for(len(seats)), Dice(seed))
    ai = TableAI(seats)
    ai_dice = Dice(seed ^ 0x5EED)
    rounds: list[Round] = []
    for number in range(len(seats) if game_id == "vigo" else 1):
        if number:
            game = game.next_game()
        start = game.clone()
        moves: list[Move] = []
        faces: list[list[str | int]] = []
        while game.pending is not None and len(moves) < MAX_DECISIONS:
            seat = game.pending.seat
            action = ai.choose(game, ai_dice)
            faces.append(faces_of(game.apply(seat, action)))
            moves.append(Move(seat, action))
        rounds.append((start, moves, faces))
    return rounds


def measure(
    game_id: str,
    name: str,
    games: int,
    seed: int,
    progress: Callable[[], None] | None = None,
) -> Measure:
    """`name` against two Experts for `games` games of `game_id`."""
    measured = temperament(name)
    expert = temperament("Expert")
    costs: list[float] = []
    counts: list[int] = []
    for g in range(games):
        place = g % SEATS
        seats = [expert] * SEATS
        seats[place] = measured
        mine = [
            decision
            for start, moves, faces in one_game(game_id, seats, seed * 1_000_003 + g)
            for decision in analyse(start, moves, seats, faces).decisions
            if decision.seat == place
        ]
        costs.append(sum(d.cost for d in mine))
        counts.append(len(mine))
        if progress is not None:
            progress()
    mean, low, high = ratio_interval(costs, counts)
    return Measure(game_id, measured.name, games, sum(counts), mean, low, high)


def table_lines(measures: Sequence[Measure]) -> list[str]:
    """The measures as a table, a block per game."""
    lines: list[str] = []
    for game_id in dict.fromkeys(m.game for m in measures):
        unit = UNITS[game_id]
        title = GAMES[game_id].title
        shown = "points of win chance" if unit == "win chance" else unit
        lines.append(f"{title}: equity given up per decision ({shown}), 95% interval")
        lines.append(f"  {'Temperament':<14} {'Games':>6} {'Decisions':>9} {'Mean':>8}  Interval")
        for m in (m for m in measures if m.game == game_id):
            lines.append(
                f"  {m.name:<14} {m.games:>6} {m.decisions:>9} "
                f"{format_value(unit, m.mean, places=3):>8}  "
                f"{format_value(unit, m.low, places=3)} to {format_value(unit, m.high, places=3)}"
            )
        lines.append("")
    return lines


def all_names() -> list[str]:
    return list(temperaments())
