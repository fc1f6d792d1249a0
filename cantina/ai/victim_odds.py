"""Exact win odds for Victim!: one-turn outcome distributions and a whole-game solver.

The method follows Neller and Presser's solution of Pig: every state's value is the vector of
the three seats' win probabilities, and a state's value is the expectation of its successors'
values under the Supporter's plan. Victim! has a shape that makes this exact and quick:

- health never rises, so the health vectors can be solved from the lowest up, each one
  needing only values already known;
- a turn without damage only rotates the roles (VI-9), and the rotation visits all six
  arrangements of the three seats before it repeats. So the six states sharing one health
  vector form a single cycle `W[i] = C[i] + Q[i] * W[i + 1]`, where `C[i]` is what the
  damaging outcomes bring and `Q[i] < 1` the chance of a quiet turn. That cycle is solved in
  closed form (what value iteration would converge to, without iterating).

A seat marked `BEST` best-responds: at each health vector it improves its two plans (the two
states where it supports) by policy iteration until none improves by more than 1e-12. With two
or three `BEST` seats the problem is a game, not a decision problem; then each health vector's
cycle is settled by iterated best response: every `BEST` seat starts from uniform play, the
`BEST` seats take turns best-responding to the others' current plans, and this stops when a
full round changes nothing (an equilibrium in pure plans, given the lower health vectors) or
after `MAX_ROUNDS` rounds (`VictimSolution.converged` is then False and the last plans stand).

Everything here is rules core: no textual, only the standard library and the game module.
"""

from __future__ import annotations

import functools
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Final, Literal

from cantina.games.victim import (
    NEUTRAL_DIE,
    PLANS,
    SABOTAGE_DIE,
    SEATS,
    SUPPORT_DIE,
    Plan,
    VictimSettings,
    VictimState,
    target_seat,
)

Health3 = tuple[int, int, int]
Key = tuple[Health3, int, int, int]
"""A position between turns: (health of seats 0, 1, 2), attacker, supporter, victim."""
TargetRole = Literal["attacker", "victim"]
Policy = Callable[[Key], Sequence[float]]
"""A seat's play as Supporter: probabilities over `PLANS`, in `PLANS` order, for a key."""
Outcome = tuple[int, int]
"""A turn's damage: (to the Victim 0, 1 or 2; to the Supporter 0 or 1)."""


class _Best:
    """The marker type of `BEST`; there is one instance."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BEST"


BEST: Final = _Best()
"""In `solve`'s policies: this seat picks, as Supporter, the plan best for its own win."""

MAX_HEALTH_VECTORS: Final = 12_000
"""The largest health box `solve` takes (the product of the three healths), about two seconds
of solving. Starting health 22 fits, rematch bonus included (22 * 22 * 23 = 11,132); the 99
the settings allow does not: `solve` then raises `OddsTooCostly`, and the caller should fall
back to a heuristic."""
MAX_ROUNDS: Final = 50
"""Iterated best response gives up on a health vector after this many rounds."""
TOLERANCE: Final = 1e-12
"""A `BEST` seat changes plan only for a gain larger than this (no flip-flopping on ties)."""


class OddsTooCostly(ValueError):
    """The healths asked for are too many states to solve in reasonable time."""


def uniform(key: Key) -> tuple[float, ...]:
    """The policy that picks each of the six plans with probability 1/6."""
    return _UNIFORM


_UNIFORM = (1 / len(PLANS),) * len(PLANS)


# --- one turn --------------------------------------------------------------------------------


def _two_dice() -> tuple[dict[tuple[int, bool], int], dict[tuple[int, bool], int]]:
    """Ways to roll each 2d6 total, split by Attacker double six and by Victim double one."""
    attack: dict[tuple[int, bool], int] = {}
    defence: dict[tuple[int, bool], int] = {}
    for first in range(1, 7):
        for second in range(1, 7):
            total = first + second
            six = (total, first == second == 6)
            one = (total, first == second == 1)
            attack[six] = attack.get(six, 0) + 1
            defence[one] = defence.get(one, 0) + 1
    return attack, defence


def _deltas(faces: Sequence[str]) -> dict[int, int]:
    """Ways (face times d12) for each change a Support or Sabotage die makes (VI-5)."""
    ways: dict[int, int] = {}
    for face in faces:
        for roll in range(1, 13):
            if face == "green":
                delta = roll // 2
            elif face == "red":
                delta = -((roll + 1) // 2)
            else:
                delta = 0
            ways[delta] = ways.get(delta, 0) + 1
    return ways


@functools.cache
def _victim_damage(die: str, role: TargetRole) -> tuple[Fraction, Fraction, Fraction]:
    """P(Victim loses 0, 1, 2 health) for one die card aimed at the given role (VI-4 to VI-7)."""
    attack, defence = _two_dice()
    deltas = {0: 1} if die == "neutral" else _deltas(_FACES[die])
    per_battle = sum(deltas.values())
    ways = [0, 0, 0]
    for (attack_total, six), attack_ways in attack.items():
        for (defence_total, one), defence_ways in defence.items():
            both = attack_ways * defence_ways
            if six or one:  # automatic win; a Support or Sabotage die changes nothing
                ways[2 if six and one else 1] += both * per_battle
                continue
            for delta, delta_ways in deltas.items():
                if role == "attacker":
                    hit = attack_total + delta > defence_total
                else:
                    hit = attack_total > defence_total + delta
                ways[1 if hit else 0] += both * delta_ways
    total = 36 * 36 * per_battle
    return Fraction(ways[0], total), Fraction(ways[1], total), Fraction(ways[2], total)


_FACES = {"support": SUPPORT_DIE, "sabotage": SABOTAGE_DIE}
_RED_TWICE = Fraction(NEUTRAL_DIE.count("red"), len(NEUTRAL_DIE)) ** 2
"""VI-6: the chance the Neutral die shows red and then red again."""


def _outcomes(plan: Plan, role: TargetRole, supporter_at_one: bool) -> dict[Outcome, Fraction]:
    victim = _victim_damage(plan.die, role)
    hurt = _RED_TWICE if plan.die == "neutral" and not supporter_at_one else Fraction(0)
    table: dict[Outcome, Fraction] = {}
    for damage, chance in enumerate(victim):
        for supporter, factor in ((0, 1 - hurt), (1, hurt)):
            if chance * factor:
                table[damage, supporter] = chance * factor
    return table


_ROLES: tuple[TargetRole, ...] = ("attacker", "victim")
_OUTCOMES: dict[tuple[Plan, TargetRole, bool], dict[Outcome, Fraction]] = {
    (plan, role, at_one): _outcomes(plan, role, at_one)
    for plan in PLANS
    for role in _ROLES
    for at_one in (False, True)
}


def turn_outcomes(
    plan: Plan, target_role: TargetRole, supporter_at_one: bool
) -> dict[Outcome, Fraction]:
    """The exact distribution of one turn's damage, {(to Victim, to Supporter): chance}.

    `target_role` is the role the plan's direction points at this turn; `supporter_at_one`
    says whether the Supporter has exactly 1 health (then the Neutral die cannot hurt it).
    Victim damage 2 comes only from double six against double one; at 1 health it ends the
    game just as damage 1 does. Outcomes with chance 0 are left out.
    """
    return dict(_OUTCOMES[plan, target_role, supporter_at_one])


# --- states ----------------------------------------------------------------------------------


def _rotate(roles: tuple[int, int, int]) -> tuple[int, int, int]:
    """VI-9, as the engine does it: (a, s, v) becomes (a + 1, v + 1, s + 1)."""
    attacker, supporter, victim = roles
    return (attacker + 1) % SEATS, (victim + 1) % SEATS, (supporter + 1) % SEATS


def _cycle() -> tuple[tuple[int, int, int], ...]:
    roles = [(0, 1, 2)]
    while (turned := _rotate(roles[-1])) != roles[0]:
        roles.append(turned)
    return tuple(roles)


_CYCLE = _cycle()
"""The six role arrangements in the order quiet turns visit them."""
assert len(_CYCLE) == 6, "VI-9's rotation must visit all six arrangements"


def _float_dists() -> tuple[tuple[tuple[float, float, float, float], ...], ...]:
    """Per arrangement in `_CYCLE`, per plan: P(Victim damage 0, 1, 2) and P(red twice)."""
    rows = []
    for attacker, supporter, _victim in _CYCLE:
        row = []
        for plan in PLANS:
            target = target_seat(supporter, plan.direction)
            role: TargetRole = "attacker" if target == attacker else "victim"
            victim = _victim_damage(plan.die, role)
            red = _RED_TWICE if plan.die == "neutral" else 0
            row.append((float(victim[0]), float(victim[1]), float(victim[2]), float(red)))
        rows.append(tuple(row))
    return tuple(rows)


_DISTS = _float_dists()
_UNIT = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def key_of(state: VictimState) -> Key:
    """The solver's key for a game state."""
    health = state.health
    return (health[0], health[1], health[2]), state.attacker, state.supporter, state.victim


def _check_key(key: Key) -> None:
    health, attacker, supporter, victim = key
    if len(health) != SEATS or sorted((attacker, supporter, victim)) != [0, 1, 2]:
        raise KeyError(f"{key!r} is not a Victim! position: roles must be seats 0, 1 and 2")


# --- the solution ----------------------------------------------------------------------------


class VictimSolution:
    """Every position's win probabilities for fixed seat policies, answered by lookup.

    `health` is the box solved: every position whose healths are at most these (seat by
    seat) is known. `converged` is False if iterated best response between `BEST` seats hit
    `MAX_ROUNDS` at some health vector (never with at most one `BEST` seat). The numbers sit
    in one flat array, `_STRIDE` per position: the three win chances, then the six plans'
    values to seat 0, to seat 1 and to seat 2.
    """

    __slots__ = ("_best", "_data", "_slots", "converged", "health", "policies")

    def __init__(
        self,
        health: Health3,
        policies: tuple[Policy | _Best, ...],
        slots: dict[Key, int],
        data: array[float],
        best: bytearray,
        converged: bool,
    ) -> None:
        self.health = health
        self.policies = policies
        self.converged = converged
        self._slots = slots
        self._data = data
        self._best = best

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, key: object) -> bool:
        return key in self._slots

    def keys(self) -> Iterator[Key]:
        """Every unfinished position solved."""
        return iter(self._slots)

    def _slot(self, key: Key) -> int:
        slot = self._slots.get(key)
        if slot is not None:
            return slot
        _check_key(key)
        if min(key[0]) < 1:
            raise KeyError(f"{key!r} is a finished game: it has no plans to weigh")
        raise KeyError(f"{key!r} lies outside the solved healths {self.health}")

    def win(self, key: Key) -> tuple[float, float, float]:
        """Each seat's chance to win from `key`; a finished game gives 1 to its winner."""
        health, attacker, _supporter, victim = key
        if health[victim] == 0:
            _check_key(key)
            return _UNIT[attacker]
        j = self._slot(key) * _STRIDE
        data = self._data
        return data[j], data[j + 1], data[j + 2]

    def plan_values(self, key: Key) -> tuple[float, ...]:
        """For each of `PLANS`, the Supporter's own win chance if it picks that plan now and
        every seat plays its policy afterwards."""
        return self.plan_values_for(key, key[2])

    def plan_values_for(self, key: Key, seat: int) -> tuple[float, ...]:
        """The same six plans' value to `seat`: what each plan means for anyone's odds."""
        if seat not in range(SEATS):
            raise ValueError(f"there is no seat {seat} at a Victim! table")
        j = self._slot(key) * _STRIDE + SEATS + seat * _N_PLANS
        return tuple(self._data[j : j + _N_PLANS])

    def best_plan(self, key: Key) -> Plan:
        """The plan with the Supporter's highest own win chance (for a `BEST` seat: the one it
        plays; otherwise ties go to the first in `PLANS` order)."""
        return PLANS[self._best[self._slot(key)]]


_N_PLANS = len(PLANS)
_STRIDE = SEATS + SEATS * _N_PLANS


# --- solving ---------------------------------------------------------------------------------


def _health_box(start: VictimSettings | VictimState | Sequence[int]) -> Health3:
    if isinstance(start, VictimSettings):
        health: Sequence[int] = (start.starting_health,) * SEATS
    elif isinstance(start, VictimState):
        health = start.health
    else:
        health = start
    if len(health) != SEATS or any(not isinstance(h, int) or h < 1 for h in health):
        raise ValueError(f"starting healths must be three whole numbers of at least 1: {health!r}")
    box = (health[0], health[1], health[2])
    if box[0] * box[1] * box[2] > MAX_HEALTH_VECTORS:
        raise OddsTooCostly(
            f"exact odds for healths {box} need {box[0] * box[1] * box[2]} health vectors;"
            f" the solver takes at most {MAX_HEALTH_VECTORS}"
        )
    return box


def _weights(policy: Policy, key: Key) -> tuple[float, ...]:
    weights = tuple(float(w) for w in policy(key))
    if len(weights) != len(PLANS) or min(weights) < 0 or abs(sum(weights) - 1) > 1e-9:
        raise ValueError(
            f"a policy must give {len(PLANS)} non-negative probabilities summing to 1;"
            f" got {weights!r} for {key!r}"
        )
    return weights


Vec = tuple[float, float, float]


def _mixed(c_i: list[Vec], q_i: list[float], weights: Sequence[float]) -> tuple[Vec, float]:
    """One state's damage value and quiet chance when its Supporter mixes plans by `weights`."""
    x = y = z = s = 0.0
    for p, w in enumerate(weights):
        if w:
            v = c_i[p]
            x += w * v[0]
            y += w * v[1]
            z += w * v[2]
            s += w * q_i[p]
    return (x, y, z), s


def _evaluate(big_c: list[Vec], big_q: list[float]) -> list[Vec]:
    """Solve the quiet-turn cycle W[i] = C[i] + Q[i] W[i + 1] (i mod 6) exactly."""
    # W[0] = C0 + Q0 C1 + Q0 Q1 C2 + ... + Q0 ... Q4 C5 + (Q0 ... Q5) W[0]
    x = y = z = 0.0
    through = 1.0
    for ci, qi in zip(big_c, big_q, strict=True):
        x += through * ci[0]
        y += through * ci[1]
        z += through * ci[2]
        through *= qi
    scale = 1.0 / (1.0 - through)  # every Q < 1: an automatic win can always happen
    after = (x * scale, y * scale, z * scale)
    out: list[Vec] = [after] * 6
    for i in range(5, 0, -1):
        ci, qi = big_c[i], big_q[i]
        after = (ci[0] + qi * after[0], ci[1] + qi * after[1], ci[2] + qi * after[2])
        out[i] = after
    return out


def _respond(
    seat: int,
    states: tuple[int, ...],
    c: list[list[Vec]],
    q: list[list[float]],
    big_c: list[Vec],
    big_q: list[float],
    choice: list[int],
) -> bool:
    """Policy iteration for `seat` on one cycle, the others fixed; True if its plans changed."""
    changed = False
    while True:
        values = _evaluate(big_c, big_q)
        improved = False
        for i in states:
            after = values[(i + 1) % 6][seat]
            c_i, q_i = c[i], q[i]
            gains = [c_i[p][seat] + q_i[p] * after for p in _PLAN_INDICES]
            top = max(_PLAN_INDICES, key=gains.__getitem__)
            now = choice[i]
            if now < 0 or gains[top] > gains[now] + TOLERANCE:
                choice[i] = top
                big_c[i] = c_i[top]
                big_q[i] = q_i[top]
                improved = True
        if not improved:
            return changed
        changed = True


_PLAN_INDICES = range(_N_PLANS)
_SUPPORTING = tuple(
    tuple(i for i, roles in enumerate(_CYCLE) if roles[1] == seat) for seat in range(SEATS)
)
"""For each seat, the two places in `_CYCLE` where it is the Supporter."""


def _solve(box: Health3, policies: tuple[Policy | _Best, ...]) -> VictimSolution:
    best_seats = [seat for seat, policy in enumerate(policies) if policy is BEST]
    win: dict[Key, tuple[float, float, float]] = {}
    slots: dict[Key, int] = {}
    data = array("d")
    best = bytearray()
    converged = True
    for h0 in range(1, box[0] + 1):
        for h1 in range(1, box[1] + 1):
            for h2 in range(1, box[2] + 1):
                health = (h0, h1, h2)
                keys: list[Key] = [(health, *roles) for roles in _CYCLE]
                c: list[list[Vec]] = []
                q: list[list[float]] = []
                big_c: list[Vec] = []
                big_q: list[float] = []
                for i, (attacker, supporter, victim) in enumerate(_CYCLE):
                    c_i, q_i = _one_step(health, i, attacker, supporter, victim, win)
                    c.append(c_i)
                    q.append(q_i)
                    policy = policies[supporter]
                    weights = _UNIFORM if isinstance(policy, _Best) else _weights(policy, keys[i])
                    mixed_c, mixed_q = _mixed(c_i, q_i, weights)
                    big_c.append(mixed_c)
                    big_q.append(mixed_q)
                choice = [-1] * 6
                for _round in range(MAX_ROUNDS):
                    changed = False
                    for seat in best_seats:
                        changed |= _respond(seat, _SUPPORTING[seat], c, q, big_c, big_q, choice)
                    if not changed or len(best_seats) == 1:
                        break
                else:
                    converged = False
                values = _evaluate(big_c, big_q)
                for i, key in enumerate(keys):
                    win[key] = values[i]
                    slots[key] = len(best)
                    data.extend(values[i])
                    after = values[(i + 1) % 6]
                    c_i, q_i = c[i], q[i]
                    for seat in range(SEATS):
                        data.extend([c_i[p][seat] + q_i[p] * after[seat] for p in _PLAN_INDICES])
                    if choice[i] < 0:
                        j = len(data) - _STRIDE + SEATS + _CYCLE[i][1] * _N_PLANS
                        own = data[j : j + _N_PLANS]
                        best.append(max(_PLAN_INDICES, key=own.__getitem__))
                    else:
                        best.append(choice[i])
    return VictimSolution(box, policies, slots, data, best, converged)


def _one_step(
    health: Health3,
    i: int,
    attacker: int,
    supporter: int,
    victim: int,
    win: dict[Key, tuple[float, float, float]],
) -> tuple[list[Vec], list[float]]:
    """Per plan: the value the damaging outcomes bring, and the chance of a quiet turn.

    Only the chances depend on the plan; the positions damage leads to (a lower health
    vector with the roles rotated, or the Attacker's win) are the same for all six plans.
    """
    roles = _CYCLE[(i + 1) % 6]
    won = _UNIT[attacker]

    def after(to_victim: int, to_supporter: int) -> Vec:
        left = list(health)
        left[victim] -= to_victim
        left[supporter] -= to_supporter
        if left[victim] <= 0:
            return won
        return win[(left[0], left[1], left[2]), *roles]

    w1, w2 = after(1, 0), after(2, 0)
    hurtable = health[supporter] > 1  # VI-6: never from 1 health
    if hurtable:
        u0, u1, u2 = after(0, 1), after(1, 1), after(2, 1)
    c: list[Vec] = []
    q: list[float] = []
    for p0, p1, p2, red in _DISTS[i]:
        if red and hurtable:
            calm = 1.0 - red
            a1, a2 = p1 * calm, p2 * calm
            b0, b1, b2 = p0 * red, p1 * red, p2 * red
            x, y, z = (
                a1 * w1[k] + a2 * w2[k] + b0 * u0[k] + b1 * u1[k] + b2 * u2[k] for k in range(SEATS)
            )
            c.append((x, y, z))
            q.append(p0 * calm)
        else:
            c.append((p1 * w1[0] + p2 * w2[0], p1 * w1[1] + p2 * w2[1], p1 * w1[2] + p2 * w2[2]))
            q.append(p0)
    return c, q


_CACHE: OrderedDict[tuple[Health3, tuple[Policy | _Best, ...]], VictimSolution] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = threading.Lock()


def solve(
    start: VictimSettings | VictimState | Sequence[int],
    policies: Sequence[Policy | _Best],
) -> VictimSolution:
    """Win probabilities of every position up to the given healths, for the seats' policies.

    `start` gives the healths to cover: settings (every seat at the starting health), a state
    (its current healths; a rematch's start covers the bonus seat) or three numbers.
    `policies` has one entry per seat: `BEST` or a `Policy`. Solutions are cached by the
    policies' identities (pass the same function objects to hit the cache), and a cached
    solution covering larger healths answers smaller ones too. Healths whose product exceeds
    `MAX_HEALTH_VECTORS` raise `OddsTooCostly`.
    """
    box = _health_box(start)
    chosen = tuple(policies)
    if len(chosen) != SEATS or not all(p is BEST or callable(p) for p in chosen):
        raise ValueError("policies must be three entries, each BEST or a callable policy")
    with _LOCK:
        for (health, cached_policies), solution in _CACHE.items():
            if cached_policies == chosen and all(
                mine <= theirs for mine, theirs in zip(box, health, strict=True)
            ):
                _CACHE.move_to_end((health, cached_policies))
                return solution
    solution = _solve(box, chosen)
    with _LOCK:
        _CACHE[box, chosen] = solution
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return solution


def clear_cache() -> None:
    """Forget every cached solution (tests, or after policies change behaviour in place)."""
    with _LOCK:
        _CACHE.clear()
