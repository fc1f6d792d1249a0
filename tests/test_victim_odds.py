"""Exact Victim! odds: the one-turn distributions, the solver, and checks against the engine.

Every expected number here is computed independently of `cantina.ai.victim_odds`: a brute
force over all dice, a plain value iteration written from the rulings, and Monte Carlo games
played through the real `VictimGame`.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

from cantina.ai import victim_odds
from cantina.ai.victim_odds import (
    BEST,
    MAX_HEALTH_VECTORS,
    OddsTooCostly,
    key_of,
    solve,
    turn_outcomes,
    uniform,
)
from cantina.games.dice import Dice
from cantina.games.victim import (
    NEUTRAL_DIE,
    PLANS,
    SABOTAGE_DIE,
    SUPPORT_DIE,
    HealthChanged,
    Plan,
    VictimGame,
    VictimSettings,
    VictimState,
)

Key = tuple[tuple[int, int, int], int, int, int]
ROLE_ORDERS = list(itertools.permutations(range(3)))


# --- independent models of one turn and of the game ------------------------------------------


_BRUTE: dict[tuple[str, str, bool], dict[tuple[int, int], Fraction]] = {}


def brute_force(
    die: str, target_role: str, supporter_at_one: bool
) -> dict[tuple[int, int], Fraction]:
    """Every roll of every die, one by one (VI-4 to VI-7): 36 * 36 * 6 * 12 equally likely
    cases for Support and Sabotage, 36 * 36 * 6 * 6 for the Neutral die's two rolls."""
    cached = _BRUTE.get((die, target_role, supporter_at_one))
    if cached is not None:
        return cached
    counts: Counter[tuple[int, int]] = Counter()
    if die == "neutral":
        second_rolls: Sequence[str | int] = NEUTRAL_DIE
        faces = NEUTRAL_DIE
    else:
        second_rolls = range(1, 13)
        faces = SUPPORT_DIE if die == "support" else SABOTAGE_DIE
    cases = 0
    for a1, a2, v1, v2 in itertools.product(range(1, 7), repeat=4):
        for face in faces:
            for second in second_rolls:
                cases += 1
                attack, defence = a1 + a2, v1 + v2
                six, one = a1 == 6 and a2 == 6, v1 == 1 and v2 == 1
                to_supporter = 0
                if die == "neutral":
                    if face == "red" and second == "red" and not supporter_at_one:
                        to_supporter = 1
                elif not (six or one):
                    assert isinstance(second, int)
                    change = 0
                    if face == "green":
                        change = math.floor(second / 2)
                    elif face == "red":
                        change = -math.ceil(second / 2)
                    if target_role == "attacker":
                        attack += change
                    else:
                        defence += change
                if six and one:
                    to_victim = 2
                elif six or one or attack > defence:
                    to_victim = 1
                else:
                    to_victim = 0
                counts[to_victim, to_supporter] += 1
    result = {outcome: Fraction(n, cases) for outcome, n in counts.items()}
    _BRUTE[die, target_role, supporter_at_one] = result
    return result


def target_role_of(plan: Plan, attacker: int, supporter: int) -> str:
    """VI-3: Left is the seat after the Supporter clockwise, Right the one after that."""
    target = (supporter + (1 if plan.direction == "left" else 2)) % 3
    return "attacker" if target == attacker else "victim"


def successor(key: Key, to_victim: int, to_supporter: int) -> Key | int:
    """The position after a turn with this damage, or the winning seat if the game ends.

    VI-9 from the rules' own words: Victim and Supporter swap, then every role moves on to
    the next seat clockwise."""
    health, attacker, supporter, victim = key
    after = list(health)
    after[victim] = max(0, after[victim] - to_victim)
    after[supporter] -= to_supporter
    if after[victim] == 0:
        return attacker
    swapped_supporter, swapped_victim = victim, supporter
    return (
        (after[0], after[1], after[2]),
        (attacker + 1) % 3,
        (swapped_supporter + 1) % 3,
        (swapped_victim + 1) % 3,
    )


def plan_outlook(key: Key, plan: Plan, value: Callable[[Key], Sequence[float]]) -> list[float]:
    """Each seat's win chance after playing `plan` at `key`, given the successors' values."""
    health, attacker, supporter, _victim = key
    role = target_role_of(plan, attacker, supporter)
    total = [0.0, 0.0, 0.0]
    for (to_victim, to_supporter), chance in brute_force(
        plan.die, role, health[supporter] == 1
    ).items():
        after = successor(key, to_victim, to_supporter)
        outlook = (
            [1.0 if seat == after else 0.0 for seat in range(3)]
            if isinstance(after, int)
            else value(after)
        )
        for seat in range(3):
            total[seat] += float(chance) * outlook[seat]
    return total


def all_keys(box: tuple[int, int, int]) -> list[Key]:
    ranges = [range(1, h + 1) for h in box]
    return [
        ((h0, h1, h2), *roles) for h0, h1, h2 in itertools.product(*ranges) for roles in ROLE_ORDERS
    ]


def value_iteration(
    box: tuple[int, int, int], choose: Sequence[Callable[[Key], Sequence[float]] | None]
) -> dict[Key, list[float]]:
    """Neller and Presser's method as it stands: sweep every state until nothing moves.

    `choose[seat]` is a policy's probabilities, or None for a seat that maximises its own
    win chance at every sweep."""
    keys = all_keys(box)
    values = {key: [1 / 3, 1 / 3, 1 / 3] for key in keys}
    for _sweep in range(2000):
        change = 0.0
        for key in keys:
            supporter = key[2]
            outlooks = [plan_outlook(key, plan, values.__getitem__) for plan in PLANS]
            policy = choose[supporter]
            if policy is None:
                new = max(outlooks, key=lambda outlook: outlook[supporter])
            else:
                weights = policy(key)
                new = [
                    sum(w * o[seat] for w, o in zip(weights, outlooks, strict=True))
                    for seat in range(3)
                ]
            change = max(change, *(abs(a - b) for a, b in zip(new, values[key], strict=True)))
            values[key] = new
        if change < 1e-14:
            return values
    raise AssertionError("value iteration did not settle")


def support_the_attacker(key: Key) -> list[float]:
    """A fixed, lopsided policy: the Support die on whichever side holds the Attacker."""
    _health, attacker, supporter, _victim = key
    left = (supporter + 1) % 3 == attacker
    return [1.0, 0, 0, 0, 0, 0] if left else [0, 0, 0, 1.0, 0, 0]


def support_either(key: Key) -> list[float]:
    """A mixed policy: the Support die, on a side picked by a fair coin."""
    return [0.5, 0, 0, 0.5, 0, 0]


# --- one turn --------------------------------------------------------------------------------


@pytest.mark.parametrize("at_one", [False, True])
@pytest.mark.parametrize("role", ["attacker", "victim"])
@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.direction}-{p.die}")
def test_one_turn_distribution_matches_brute_force(plan: Plan, role: str, at_one: bool) -> None:
    exact = turn_outcomes(plan, role, at_one)  # type: ignore[arg-type]
    assert sum(exact.values()) == 1
    assert exact == brute_force(plan.die, role, at_one)


def test_one_turn_anchors_worked_by_hand() -> None:
    """Double six against double one is 1/36 * 1/36 whatever the plan (VI-4); the Neutral die
    hurts a Supporter above 1 health with (3/6)^2 = 1/4 and never at 1 health (VI-6)."""
    for plan in PLANS:
        for role in ("attacker", "victim"):
            for at_one in (False, True):
                table = turn_outcomes(plan, role, at_one)  # type: ignore[arg-type]
                assert table.get((2, 0), 0) + table.get((2, 1), 0) == Fraction(1, 1296)
                hurt = sum(p for (_v, s), p in table.items() if s)
                assert hurt == (Fraction(1, 4) if plan.die == "neutral" and not at_one else 0)
    # Without support, the Victim is hit when the Attacker's 2d6 beats the Victim's (575 of
    # 1296) or on an automatic win that the plain comparison missed.
    neutral = turn_outcomes(Plan(direction="left", die="neutral"), "victim", True)
    automatic_but_not_higher = sum(
        1
        for a1, a2, v1, v2 in itertools.product(range(1, 7), repeat=4)
        if ((a1 == a2 == 6) or (v1 == v2 == 1)) and not (a1 + a2 > v1 + v2)
    )
    assert neutral[1, 0] + neutral[2, 0] == Fraction(575 + automatic_but_not_higher, 1296)
    # Supporting the Attacker helps it; sabotaging the Attacker hurts it.
    hit = {
        (die, role): 1 - turn_outcomes(Plan(direction="left", die=die), role, False)[0, 0]
        for die in ("support", "sabotage")
        for role in ("attacker", "victim")
    }
    base = 1 - neutral[0, 0]
    assert hit["support", "attacker"] > base > hit["sabotage", "attacker"]
    assert hit["support", "victim"] < base < hit["sabotage", "victim"]


def test_one_turn_distribution_matches_the_engine() -> None:
    """Thousands of single turns through `VictimGame` land within a few standard errors."""
    dice = Dice(20240611)
    settings = VictimSettings()
    for plan in (PLANS[0], PLANS[4], PLANS[5]):  # left support, right sabotage, right neutral
        for supporter_health in (3, 1):
            seen: Counter[tuple[int, int]] = Counter()
            n = 6000
            for _ in range(n):
                state = VictimState(
                    settings=settings,
                    health=[4, supporter_health, 4],
                    attacker=0,
                    supporter=1,
                    victim=2,
                    turn=1,
                )
                game = VictimGame(state, dice)
                events = game.apply(1, plan)
                lost = Counter(e.seat for e in events if isinstance(e, HealthChanged))
                seen[lost[2], lost[1]] += 1
            role = "victim" if plan.direction == "left" else "attacker"
            exact = turn_outcomes(plan, role, supporter_health == 1)  # type: ignore[arg-type]
            for outcome in set(exact) | set(seen):
                p = float(exact.get(outcome, 0))
                error = math.sqrt(max(p * (1 - p), 1e-4) / n)
                assert abs(seen[outcome] / n - p) < 5 * error, (plan, outcome)


# --- the solver against a plain value iteration ----------------------------------------------


SMALL = (3, 2, 3)


@pytest.mark.parametrize(
    ("policies", "choose"),
    [
        ((uniform, uniform, uniform), (uniform, uniform, uniform)),
        ((BEST, uniform, uniform), (None, uniform, uniform)),
        ((uniform, support_the_attacker, BEST), (uniform, support_the_attacker, None)),
    ],
    ids=["uniform", "seat0-best", "lopsided-and-seat2-best"],
)
def test_solver_matches_value_iteration(policies: tuple, choose: tuple) -> None:
    victim_odds.clear_cache()  # a cached solve of larger healths would answer too, with more states
    expected = value_iteration(SMALL, choose)
    solution = solve(SMALL, policies)
    assert len(solution) == len(expected)
    for key, values in expected.items():
        assert solution.win(key) == pytest.approx(values, abs=1e-10), key
        for seat in range(3):
            outlooks = [plan_outlook(key, plan, expected.__getitem__)[seat] for plan in PLANS]
            assert solution.plan_values_for(key, seat) == pytest.approx(outlooks, abs=1e-10)
        assert solution.plan_values(key) == solution.plan_values_for(key, key[2])


def solutions_to_check() -> list[tuple[tuple[int, int, int], tuple]]:
    return [
        ((5, 5, 5), (uniform, uniform, uniform)),
        ((5, 5, 5), (BEST, uniform, uniform)),
        ((5, 6, 5), (uniform, support_either, BEST)),
        ((5, 5, 5), (BEST, BEST, uniform)),
        ((5, 5, 6), (BEST, BEST, BEST)),
    ]


@pytest.mark.parametrize(("box", "policies"), solutions_to_check())
def test_every_position_is_consistent_and_best_seats_cannot_gain(box, policies) -> None:
    """At every position: the chances sum to 1, they follow from the successors through the
    brute-forced turn (Bellman's equation), and no BEST Supporter has a better plan."""
    solution = solve(box, policies)
    assert solution.converged
    keys = all_keys(box)
    assert sorted(solution.keys()) == sorted(keys)
    for key in keys:
        win = solution.win(key)
        assert sum(win) == pytest.approx(1, abs=1e-12)
        assert all(0 <= p <= 1 for p in win)
        supporter = key[2]
        outlooks = [plan_outlook(key, plan, solution.win) for plan in PLANS]
        for seat in range(3):
            assert solution.plan_values_for(key, seat) == pytest.approx(
                [o[seat] for o in outlooks], abs=1e-12
            )
        policy = policies[supporter]
        if policy is BEST:
            own = [o[supporter] for o in outlooks]
            assert win[supporter] >= max(own) - 1e-12
            assert outlooks[PLANS.index(solution.best_plan(key))] == pytest.approx(win, abs=1e-12)
        else:
            weights = policy(key)
            mixed = [
                sum(w * o[seat] for w, o in zip(weights, outlooks, strict=True))
                for seat in range(3)
            ]
            assert list(win) == pytest.approx(mixed, abs=1e-12)
            own = solution.plan_values(key)
            assert own[PLANS.index(solution.best_plan(key))] == max(own)


def test_a_best_seat_beats_playing_at_random() -> None:
    """Against two uniform seats, best response wins clearly more often than uniform play,
    from every starting arrangement of the roles."""
    random_play = solve((5, 5, 5), (uniform, uniform, uniform))
    best_play = solve((5, 5, 5), (BEST, uniform, uniform))
    for roles in ROLE_ORDERS:
        key = ((5, 5, 5), *roles)
        assert best_play.win(key)[0] > random_play.win(key)[0] + 0.05
    # Everyone at random: the seats differ only by where the roles start.
    start = ((5, 5, 5), 0, 1, 2)
    assert sum(random_play.win(start)) == pytest.approx(1)
    assert max(random_play.win(start)) < 0.45


# --- the solver against whole games in the real engine ---------------------------------------


def play_games(
    health: tuple[int, int, int],
    pick: Sequence[Callable[[VictimGame], Plan]],
    games: int,
    seed: int,
) -> list[int]:
    """Play `games` games from (attacker, supporter, victim) = (0, 1, 2); count each seat's wins."""
    dice = Dice(seed)
    settings = VictimSettings(starting_health=max(health))
    wins = [0, 0, 0]
    for _ in range(games):
        state = VictimState(
            settings=settings, health=list(health), attacker=0, supporter=1, victim=2, turn=1
        )
        game = VictimGame(state, dice)
        while (decision := game.pending) is not None:
            game.apply(decision.seat, pick[decision.seat](game))
        assert game.result is not None
        wins[game.result.winner] += 1
    return wins


def at_random(game: VictimGame) -> Plan:
    return game.dice.choice(PLANS)


def either_support(game: VictimGame) -> Plan:
    return game.dice.choice((PLANS[0], PLANS[3]))


@pytest.mark.parametrize(
    ("health", "policies", "seed"),
    [
        ((5, 5, 5), (uniform, uniform, uniform), 11),
        ((5, 5, 6), (BEST, uniform, support_either), 12),
    ],
    ids=["uniform", "best-vs-mixed-rematch"],
)
def test_solved_odds_match_games_played_by_the_engine(health, policies, seed) -> None:
    solution = solve(health, policies)

    def follow(policy: object) -> Callable[[VictimGame], Plan]:
        if policy is BEST:
            return lambda game: solution.best_plan(key_of(game.state))
        return at_random if policy is uniform else either_support

    games = 12_000
    wins = play_games(health, [follow(p) for p in policies], games, seed)
    expected = solution.win((health, 0, 1, 2))
    for seat in range(3):
        p = expected[seat]
        error = math.sqrt(p * (1 - p) / games)
        assert abs(wins[seat] / games - p) < 4 * error, (seat, wins, expected)


# --- the API around the solver ---------------------------------------------------------------


def test_lookups_keys_and_errors() -> None:
    victim_odds.clear_cache()
    policies = (BEST, uniform, uniform)
    solution = solve(VictimSettings(), policies)
    assert solution.health == (5, 5, 5)
    assert solve((5, 5, 5), policies) is solution
    assert solve((3, 5, 4), policies) is solution  # a covered smaller box reuses it
    assert solve((5, 5, 5), (uniform, uniform, uniform)) is not solution

    state = VictimState(
        settings=VictimSettings(), health=[2, 5, 3], attacker=2, supporter=0, victim=1, turn=7
    )
    key = key_of(state)
    assert key == ((2, 5, 3), 2, 0, 1)
    assert solution.best_plan(key) in PLANS
    assert len(solution.plan_values(key)) == len(PLANS)

    finished = ((3, 0, 2), 2, 0, 1)
    assert solution.win(finished) == (0.0, 0.0, 1.0)
    with pytest.raises(KeyError, match="finished"):
        solution.plan_values(finished)
    with pytest.raises(KeyError, match="outside"):
        solution.win(((6, 1, 1), 0, 1, 2))
    with pytest.raises(KeyError, match="roles"):
        solution.win(((1, 1, 1), 0, 0, 2))
    with pytest.raises(ValueError, match="seat"):
        solution.plan_values_for(key, 3)

    with pytest.raises(OddsTooCostly):
        solve(VictimSettings(starting_health=99), policies)
    assert MAX_HEALTH_VECTORS >= 6 * 6 * 6
    with pytest.raises(ValueError, match="three"):
        solve((5, 5), policies)
    with pytest.raises(ValueError, match="probabilities"):
        solve((2, 2, 2), (BEST, lambda key: [1.0, 1.0, 0, 0, 0, 0], uniform))
