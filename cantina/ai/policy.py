"""How a temperament turns the exact worth of each option into a choice.

Every option's utility is its exact value plus the temperament's leanings (risk, greed,
loyalty, superstition), each measured in the decision's own size: the pot for a claim or a
vote, the stake for mercy, ten points of win chance for a Victim! plan. Mistake noise turns
the utilities into a softmax distribution (the Gumbel-max reading of "noise on an exact
evaluation", as GNU Backgammon's levels add noise), so a temperament's play is an exact
distribution that the Expert can best-reply to. Noise 0 is argmax, ties drawn evenly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from cantina.ai.temperament import Temperament
from cantina.games.table import Action, Game, Kind
from cantina.games.valdes import Call, ValDesGame
from cantina.games.victim import Plan, VictimGame
from cantina.games.vigo import Challenge, Mercy, Raise, SetStake, VigoGame, Vote

PLAN_SCALE = 0.1
"""A Victim! leaning of 1 is worth ten points of win chance."""


def plan_bias(temperament: Temperament, plan: Plan, target_is_victim: bool) -> float:
    """Loyalty helps the Victim (support it, sabotage the Attacker); risk likes the Neutral
    die, which gambles the Supporter's own health for nothing."""
    if plan.die == "neutral":
        return temperament.risk * 0.5
    helps_victim = (plan.die == "support") == target_is_victim
    return temperament.loyalty if helps_victim else -temperament.loyalty


def _vigo_leanings(
    game: VigoGame, temperament: Temperament, options: Sequence[Action]
) -> tuple[float, list[float]]:
    s = game.state
    risk, greed = temperament.risk, temperament.greed
    assert game.pending is not None  # leanings are asked of a decision that is pending
    kind = game.pending.kind
    if kind is Kind.SET_STAKE:
        top = s.settings.stake_limit
        scale = float(top)
        lean = [(risk + greed) * o.stake / top for o in options if isinstance(o, SetStake)]
    elif kind is Kind.CHOOSE_RAISE:
        scale = float(s.stake * 3)
        lean = [(risk + greed) * o.stakes / 3 for o in options if isinstance(o, Raise)]
    elif kind is Kind.MERCY:
        scale = float(s.stake)
        lean = [(greed + 0.5 * risk) if o == Mercy(True) else 0.0 for o in options]
    else:  # claim or challenge, vote: the pot is what is at stake
        scale = float(max(s.pot, 1))
        risky = {Challenge(), Vote(False)}
        lean = [(0.6 * risk + 0.3 * greed) if o in risky else 0.0 for o in options]
    return scale, [scale * x for x in lean]


def _valdes_leanings(
    game: ValDesGame, temperament: Temperament, options: Sequence[Action]
) -> tuple[float, list[float]]:
    reveals = game.state.reveals
    last = reveals[-1] if reveals else None
    chase = temperament.superstition
    return 1.0, [chase if isinstance(o, Call) and o.colour == last else 0.0 for o in options]


def leanings(
    game: Game, temperament: Temperament, options: Sequence[Action]
) -> tuple[float, list[float]]:
    """The decision's size and the temperament's leaning toward each option, in value units."""
    if isinstance(game, VigoGame):
        return _vigo_leanings(game, temperament, options)
    if isinstance(game, ValDesGame):
        return _valdes_leanings(game, temperament, options)
    assert isinstance(game, VictimGame)
    state = game.state
    return PLAN_SCALE, [
        PLAN_SCALE * plan_bias(temperament, o, game.target_of(o.direction) == state.victim)
        for o in options
        if isinstance(o, Plan)
    ]


def distribution(utilities: Sequence[float], noise: float) -> list[float]:
    """Softmax of the utilities at temperature `noise` (0: argmax, ties shared)."""
    if noise <= 0:
        best = max(utilities)
        ties = [u >= best - 1e-12 for u in utilities]
        share = 1.0 / sum(ties)
        return [share if tie else 0.0 for tie in ties]
    top = max(utilities)
    weights = [math.exp((u - top) / noise) for u in utilities]
    total = sum(weights)
    return [w / total for w in weights]


def pick(probabilities: Sequence[float], dice) -> int:
    """An index drawn from `probabilities` with the table's dice; no draw when one is sure."""
    if max(probabilities) >= 1.0:
        return probabilities.index(max(probabilities))
    candidates = [i for i, p in enumerate(probabilities) if p > 0]
    if all(probabilities[i] == probabilities[candidates[0]] for i in candidates):
        return dice.choice(candidates)
    u = dice.uniform()
    for i, p in enumerate(probabilities):
        u -= p
        if u < 0:
            return i
    return candidates[-1]
