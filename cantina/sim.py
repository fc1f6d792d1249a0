"""AI-against-AI simulation: many games, per-temperament results and game statistics.

Seats rotate between games (game g puts entry i in seat (i + g) mod n) so that no
temperament keeps the seat left of the first Vigo or the first Caster. One table source,
seeded once, drives every game and every AI choice, so a run is reproducible from its seed.

What one "game" is, per game: Vigo's Favor plays one lap (each seat takes the title once,
VF-11; the title goes to the first player who rolled, so a lap is one round per seat) and
the winner is the one highest bank; Val-Des plays one game with the ante (VD-6); Victim!
plays one match, and its net is credits at a match stake of 1 (CA-1).
"""

from __future__ import annotations

import abc
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cantina.ai.player import TableAI
from cantina.ai.temperament import Temperament
from cantina.games import events as common
from cantina.games import valdes, victim, vigo
from cantina.games.dice import Dice
from cantina.games.table import Action, Game, Kind

MAX_DECISIONS = 100_000
"""A guard, far above any real game, so a runaway table fails loudly instead of hanging."""


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a win rate: sound near 0 and 1, unlike p ± 2se."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class SeatTally:
    temperament: str
    wins: int = 0
    net: int = 0
    behaviour: Counter[str] = field(default_factory=Counter)
    """Counts of decisions faced and options taken, by name (e.g. 'challenge', 'claim')."""


def mean_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean and its normal 95% interval: fine for the thousands of games sims play."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 2:
        return (mean, mean, mean)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return (mean, mean - half, mean + half)


@dataclass
class SimResult:
    game: str
    games: int
    seed: int
    settings: Any
    seats: list[SeatTally]
    stats: dict[str, float]
    game_nets: list[tuple[int, ...]] = field(default_factory=list)
    """Each game's net for every entry, for intervals and paired comparisons."""
    requested: int = 0
    """How many games were asked for: more than `games` when the run was stopped early."""

    @property
    def stopped(self) -> bool:
        return self.requested > self.games

    def net_per_game(self, entry: int) -> tuple[float, float, float]:
        return mean_interval([nets[entry] for nets in self.game_nets])

    def to_json(self) -> dict[str, Any]:
        seats: list[dict[str, Any]] = []
        for tally in self.seats:
            low, high = wilson(tally.wins, self.games)
            seats.append(
                {
                    "temperament": tally.temperament,
                    "wins": tally.wins,
                    "win_rate": tally.wins / self.games if self.games else 0.0,
                    "win_rate_ci95": [low, high],
                    "net": tally.net,
                    "net_per_game": self.net_per_game(len(seats)),
                    "behaviour": behaviour_rates(tally.behaviour),
                }
            )
        found: dict[str, Any] = {
            "game": self.game,
            "games": self.games,
            "seed": self.seed,
            "seats": seats,
            "stats": self.stats,
        }
        if self.stopped:
            found["stopped"] = {"requested": self.requested}
        return found


RATES = {
    "challenge_rate": ("challenge", "claim or challenge"),
    "roll_again_rate": ("roll again", "vote split or roll"),
    "mercy_rate": ("pay mercy", "pay for mercy"),
    "mean_stake": ("stake credits", "set the stake"),
    "mean_raise": ("raise stakes", "choose a raise"),
    "chase_rate": ("chase", "call Val or Des"),
    "neutral_rate": ("neutral", "choose target and die"),
    "help_victim_rate": ("help victim", "choose target and die"),
}
"""Behaviour figures: (what was counted, per decisions of this kind)."""


def behaviour_rates(counts: Counter[str]) -> dict[str, float]:
    return {
        name: counts[top] / counts[bottom]
        for name, (top, bottom) in RATES.items()
        if counts[bottom]
    }


def note_choice(game: Game, action: Action, counts: Counter[str]) -> None:
    """Count what a seat faced and what it took, for the behaviour figures."""
    assert game.pending is not None  # a choice is counted as it is made
    kind = game.pending.kind
    counts[str(kind)] += 1
    if kind is Kind.CLAIM_OR_CHALLENGE and isinstance(action, vigo.Challenge):
        counts["challenge"] += 1
    elif kind is Kind.VOTE and action == vigo.Vote(False):
        counts["roll again"] += 1
    elif kind is Kind.MERCY and action == vigo.Mercy(True):
        counts["pay mercy"] += 1
    elif kind is Kind.SET_STAKE and isinstance(action, vigo.SetStake):
        counts["stake credits"] += action.stake
    elif kind is Kind.CHOOSE_RAISE and isinstance(action, vigo.Raise):
        counts["raise stakes"] += action.stakes
    elif kind is Kind.CALL and isinstance(action, valdes.Call):
        reveals = game.state.reveals
        counts["chase"] += bool(reveals) and action.colour == reveals[-1]
    elif kind is Kind.PLAN and isinstance(action, victim.Plan):
        assert isinstance(game, victim.VictimGame)
        counts["neutral"] += action.die == "neutral"
        aims_at_victim = game.target_of(action.direction) == game.state.victim
        counts["help victim"] += action.die != "neutral" and (
            (action.die == "support") == aims_at_victim
        )


def play(
    game: Game, ai: TableAI, on_choice: Callable[[Game, int, Action], None] | None = None
) -> Iterator[common.Event]:
    """Play `game` to the end with AI seats, yielding every event, opening events first;
    `on_choice(game, seat, action)` hears each choice before it is applied."""
    yield from game.opening_events
    for _ in range(MAX_DECISIONS):
        decision = game.pending
        if decision is None:
            return
        action = ai.choose(game)
        if on_choice:
            on_choice(game, decision.seat, action)
        yield from game.apply(decision.seat, action)
    raise RuntimeError(f"a {game.game_id} table made {MAX_DECISIONS} decisions without ending")


def tally_choices(
    entry_of: Sequence[int], tallies: list[SeatTally]
) -> Callable[[Game, int, Action], None]:
    """An `on_choice` that counts each choice against the entry in that seat."""

    def on_choice(game: Game, seat: int, action: Action) -> None:
        note_choice(game, action, tallies[entry_of[seat]].behaviour)

    return on_choice


class GameRunner(abc.ABC):
    """Plays games of one kind and keeps that game's statistics."""

    game_id: str

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.stats: Counter[str] = Counter()

    def seats(self) -> int:
        return self.settings.seats

    @abc.abstractmethod
    def run(self, dice: Dice, ai: TableAI, entry_of: list[int], tallies: list[SeatTally]) -> None:
        """Play one game, adding wins and net to the tallies of the entries seated."""

    @abc.abstractmethod
    def summary(self, games: int) -> dict[str, float]:
        """The game statistics over `games` games."""


class VigoRunner(GameRunner):
    game_id = "vigo"

    def run(self, dice, ai, entry_of, tallies):
        game = vigo.VigoGame.new(self.settings, dice)
        rounds = 1 if self.settings.house_vigo else self.seats()
        for number in range(rounds):
            if number:
                game = game.next_round()
            for event in play(game, ai, tally_choices(entry_of, tallies)):
                if isinstance(event, vigo.Challenged):
                    self.stats["challenges"] += 1
                elif isinstance(event, common.Transfer) and event.why == "mercy":
                    self.stats["mercy_payments"] += 1
            result = game.result
            assert result is not None  # played to its end
            self.stats["rounds"] += 1
            self.stats["splits"] += result.outcome == "split"
            self.stats["vigo_net"] += result.net[game.state.vigo]
        start = self.settings.starting_bank
        banks = game.state.banks
        for seat, bank in enumerate(banks):
            tallies[entry_of[seat]].net += bank - start
        top = max(banks)
        if banks.count(top) == 1:
            tallies[entry_of[banks.index(top)]].wins += 1

    def summary(self, games):
        rounds = self.stats["rounds"] or 1
        return {
            "rounds": self.stats["rounds"],
            "challenges_per_round": self.stats["challenges"] / rounds,
            "split_rate": self.stats["splits"] / rounds,
            "mercy_payments_per_round": self.stats["mercy_payments"] / rounds,
            "vigo_net_per_round": self.stats["vigo_net"] / rounds,
        }


class ValDesRunner(GameRunner):
    game_id = "valdes"

    def run(self, dice, ai, entry_of, tallies):
        game = valdes.ValDesGame.new(self.settings, dice)
        regulation = True
        for event in play(game, ai, tally_choices(entry_of, tallies)):
            if isinstance(event, valdes.TieBreak):
                regulation = False
                self.stats["tie_breaks"] += 1
            elif isinstance(event, common.Scored):
                if event.why == "streak bonus":
                    self.stats["streak_bonuses"] += 1
                elif regulation:
                    self.stats["regulation_points"] += event.points
        state = game.state
        self.stats["players"] += len(state.players)
        assert game.result is not None  # played to its end
        winner = game.result.winner
        tallies[entry_of[winner]].wins += 1
        for seat in state.players:
            tallies[entry_of[seat]].net += state.settings.ante * (
                len(state.players) - 1 if seat == winner else -1
            )

    def summary(self, games):
        players = self.stats["players"] or 1
        return {
            "mean_regulation_points": self.stats["regulation_points"] / players,
            "streak_bonus_rate": self.stats["streak_bonuses"] / players,
            "tie_break_rate": self.stats["tie_breaks"] / max(games, 1),
        }


class VictimRunner(GameRunner):
    game_id = "victim"

    def seats(self) -> int:
        return victim.SEATS

    def run(self, dice, ai, entry_of, tallies):
        game = victim.VictimGame.new(self.settings, dice)
        for event in play(game, ai, tally_choices(entry_of, tallies)):
            if isinstance(event, victim.AutomaticWin):
                self.stats["automatic_wins"] += 1
            elif isinstance(event, common.HealthChanged) and event.why == victim.NEUTRAL_WOUND:
                self.stats["neutral_damage"] += -event.delta
        result = game.result
        assert result is not None  # played to its end
        self.stats["turns"] += result.turns
        tallies[entry_of[result.winner]].wins += 1
        tallies[entry_of[result.winner]].net += 2
        for seat in result.losers:
            tallies[entry_of[seat]].net -= 1

    def summary(self, games):
        games = max(games, 1)
        return {
            "mean_turns": self.stats["turns"] / games,
            "automatic_wins_per_game": self.stats["automatic_wins"] / games,
            "neutral_damage_per_game": self.stats["neutral_damage"] / games,
        }


RUNNERS: dict[str, type[GameRunner]] = {
    runner.game_id: runner for runner in (VigoRunner, ValDesRunner, VictimRunner)
}


def simulate(
    game_id: str,
    temperaments: Sequence[Temperament],
    games: int,
    seed: int,
    settings: Any,
    progress: Callable[[int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> SimResult:
    """Play `games` games with the given temperaments (one entry per seat, rotated).

    `stop` is asked before each game: once it says yes, the games played so far are the
    result (a game is never cut short, so every figure stays whole)."""
    runner = RUNNERS[game_id](settings)
    n = runner.seats()
    if len(temperaments) != n:
        raise ValueError(f"{n} seats at this table, but {len(temperaments)} temperaments given")
    dice = Dice(seed)
    tallies = [SeatTally(t.name) for t in temperaments]
    tables = {}
    game_nets: list[tuple[int, ...]] = []
    played = 0
    for number in range(games):
        if stop is not None and stop():
            break
        shift = number % n
        entry_of = [(seat - shift) % n for seat in range(n)]
        if shift not in tables:  # one TableAI per seating keeps its solved odds warm
            tables[shift] = TableAI([temperaments[entry] for entry in entry_of])
        before = [tally.net for tally in tallies]
        runner.run(dice, tables[shift], entry_of, tallies)
        game_nets.append(tuple(t.net - b for t, b in zip(tallies, before, strict=True)))
        played = number + 1
        if progress:
            progress(played)
    return SimResult(
        game_id, played, seed, settings, tallies, runner.summary(played), game_nets, games
    )
