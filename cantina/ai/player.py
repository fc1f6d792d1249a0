"""AI seats at a table: exact values, temperaments and the Expert's best reply.

A `TableAI` knows every seat's temperament (None for a human), because the Expert's
Victim! play is a best reply to the distributions the other seats actually play. It is the
one place that answers both "what does this AI choose" and "what is each option worth",
so the app's odds readout and the AI agree by construction.
"""

from __future__ import annotations

from collections.abc import Sequence

from cantina.ai import victim_odds, vigo_odds
from cantina.ai.policy import PLAN_SCALE, distribution, leanings, pick, plan_bias
from cantina.ai.temperament import Temperament
from cantina.games.dice import Dice
from cantina.games.table import Action, Game
from cantina.games.valdes import ValDesGame
from cantina.games.victim import PLANS, VictimGame, target_seat
from cantina.games.vigo import VigoGame

HUMAN_MODEL = Temperament(
    name="Human", description="How the Expert expects a person to play.", noise=1.0
)
"""What the Expert assumes of a human seat in Victim!: the odds, played with mistakes."""


class TableAI:
    """Chooses for the AI seats of one table and values options for any seat."""

    def __init__(self, temperaments: Sequence[Temperament | None]) -> None:
        self.temperaments = list(temperaments)
        self._victim: tuple[tuple[int, ...], victim_odds.VictimSolution] | None = None
        self._baseline: tuple[tuple[int, ...], victim_odds.VictimSolution] | None = None

    def choose(self, game: Game, dice: Dice | None = None) -> Action:
        """The pending seat's choice. Its randomness comes from `dice`: a live table passes
        a source of its own for the AI, so a game replays from its seed and moves alone;
        a simulation uses the table's dice, one seed for everything."""
        decision = game.pending
        if decision is None:
            raise ValueError("the game is over: there is nothing to choose")
        temperament = self.temperaments[decision.seat]
        if temperament is None:
            raise ValueError(f"seat {decision.seat} is a human seat, not an AI")
        options = decision.options
        if isinstance(game, VictimGame):
            probabilities = self._victim_policy(game, decision.seat, temperament)
        else:
            values = self.values(game)
            scale, lean = leanings(game, temperament, options)
            utilities = [v + b for v, b in zip(values, lean, strict=True)]
            probabilities = distribution(utilities, temperament.noise * scale)
        return options[pick(probabilities, game.dice if dice is None else dice)]

    def values(self, game: Game) -> tuple[float, ...]:
        """What each option of the pending decision is worth to the seat deciding: expected
        credits (Vigo's Favor), win chance (Victim!) or, in Val-Des, an even 1/2 each, for
        the cube has no memory and no call has an edge."""
        decision = game.pending
        if decision is None:
            return ()
        if isinstance(game, VigoGame):
            return tuple(vigo_odds.option_values(game))
        if isinstance(game, ValDesGame):
            return (0.5,) * len(decision.options)
        assert isinstance(game, VictimGame)
        key = victim_odds.key_of(game.state)
        return tuple(self._solution(game).plan_values(key))

    def win_chances(self, game: VictimGame) -> tuple[float, float, float]:
        """Each seat's chance to win the match from here, with every seat playing as this
        table's temperaments do (what a campaign's luck is measured against)."""
        return self._solution(game).win(victim_odds.key_of(game.state))

    def solution(self, game: VictimGame) -> victim_odds.VictimSolution:
        """The table's solved Victim! odds from the current healths down (the analysis
        reads every position's value from it)."""
        return self._solution(game)

    # --- Victim! -------------------------------------------------------------------------

    def _victim_policy(
        self, game: VictimGame, seat: int, temperament: Temperament
    ) -> Sequence[float]:
        key = victim_odds.key_of(game.state)
        if temperament.best_response:
            best = self._solution(game).best_plan(key)
            return tuple(1.0 if plan == best else 0.0 for plan in PLANS)
        return self._leaning_policy(temperament, game.state.health)(key)

    def _leaning_policy(self, temperament: Temperament, health: Sequence[int]):
        """A temperament's exact plan distribution in any state: the baseline odds (every
        seat at random) bent by its leanings, softened by its noise."""
        baseline = self._baseline_solution(health)

        def policy(key: victim_odds.Key) -> Sequence[float]:
            values = baseline.plan_values(key)
            supporter, victim = key[2], key[3]
            utilities = [
                value + PLAN_SCALE * plan_bias(temperament, plan, target == victim)
                for value, plan, target in zip(values, PLANS, _targets(supporter), strict=True)
            ]
            return distribution(utilities, temperament.noise * PLAN_SCALE)

        return policy

    def _baseline_solution(self, health: Sequence[int]) -> victim_odds.VictimSolution:
        if self._baseline is None or not _covers(self._baseline[0], health):
            start = tuple(health)
            self._baseline = (start, victim_odds.solve(start, (victim_odds.uniform,) * 3))
        return self._baseline[1]

    def _solution(self, game: VictimGame) -> victim_odds.VictimSolution:
        """The table's solved odds: best replies for Experts, exact distributions for the
        rest (humans modelled by HUMAN_MODEL), from the current healths down."""
        health = game.state.health
        if self._victim is None or not _covers(self._victim[0], health):
            policies = tuple(
                victim_odds.BEST
                if t is not None and t.best_response
                else self._leaning_policy(t or HUMAN_MODEL, health)
                for t in self.temperaments
            )
            self._victim = (tuple(health), victim_odds.solve(tuple(health), policies))
        return self._victim[1]


def _targets(supporter: int) -> tuple[int, ...]:
    """The seat each of PLANS aims at, for this Supporter (Left is the next seat)."""
    return tuple(target_seat(supporter, plan.direction) for plan in PLANS)


def _covers(solved_from: Sequence[int], health: Sequence[int]) -> bool:
    """A solve from `solved_from` covers every state whose healths are no higher."""
    return all(h <= top for h, top in zip(health, solved_from, strict=True))
