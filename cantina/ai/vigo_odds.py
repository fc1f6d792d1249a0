"""Expected credits of every option at a Vigo's Favor decision, by backward induction.

What a value means
------------------
`option_values(game)` gives, for each option of the pending decision (in the order of
`game.pending.options`), the expected credits the deciding seat still gains this round:
what it will receive from now to the end of the round minus what it will pay from now on
(the antes included, when the option is the Vigo's stake). Money already paid is sunk and
not counted, so the options of one decision compare directly. `values_for(game, seat)`
gives the same options' worth to any other seat (0 for a seat not in the round). Credits
are conserved (VF-10), so one option's worths summed over every seat equal the pot as it
stands: the whole pot goes to someone and every other payment is a transfer.

The model
---------
Every later decision, the deciding seat's own and everyone else's, is taken to be made by
a risk-neutral player maximising its own expected credits for this round (backward
induction, i.e. subgame-perfect play), and every chance cube matches the favor with
probability exactly 1/2; the favor's colour never matters, only match or miss. Ties are
broken one fixed way, so nobody is assumed to pay or refuse for nothing (`choice` returns
the option the model assumes):

* Stake (VF-2): the Vigo takes the smallest stake of highest worth.
* Mercy (VF-14): a missing player who can cover the stake pays it only if staying in favor
  is worth strictly more to it than the stake.
* Vote (VF-7): a survivor refuses only if rolling again is worth strictly more to it than
  its share of a split. So a vote splits exactly when no survivor still to vote strictly
  prefers to roll again (a survivor whose refusal would change nothing votes split).
* Claim (VF-6): a challenge is worth half the pot to each side whatever the raise (the
  raise is matched, then one fair roll takes the whole pot), and a survivor always faces
  a pot of at least one stake, so it always claims; the Vigo, indifferent, names the
  smallest raise.

"Strictly" means by more than `EPSILON` credits, so float rounding cannot flip a tie.

Everything in between follows the engine: the antes of the players who can cover the
stake, the rolls in clockwise order (a later roller's mercy choice knows the earlier
results), the outcomes VF-5 to VF-7, the Vigo's payment of one stake per survivor or, when
short, all it has and an immediate split (VF-9), splits with the odd credits to the Vigo
(VF-8), and under Rising Stakes the opening stake added at every roll-again (VF-12). House
Vigo (VF-13) changes only who is Vigo next round, which no value here depends on.

Canonical state and memo
------------------------
Between decisions a round is a run of rolls, so the solver works on a compact key:

    (stake, pot, Vigo's bank, players' banks, k, horizon left)

inside a table of solved states per context `(bank unit, stake rise, pot ceiling)`. The
rise is what a roll-again adds to the stake (the opening stake under Rising Stakes, else
0). Players are anonymous, one tuple of banks: the first k are the survivors so far in
the order they stayed, the rest still have to roll, in rolling order (always clockwise,
and it matters: a later roller's mercy choice knows more). A vote is keyed the same way,
its survivors' banks in voting order. A player's bank only decides whether it can afford
mercy, so it is kept in whole units of `gcd(stake, rise)` (of the stake when the stake
never rises), and as 0 when mercy is off. The Vigo's bank is kept exactly (it sets the
VF-9 shortfall). Seat numbers, the favor's colour, eliminated players and money already
paid never enter the key, so rounds and tables share solved states. The tables live at
module level, across calls; past `MEMO_LIMIT` entries they are all dropped before the
next solve.

The recursion ends: a roll-again follows a vote, before which the Vigo paid at least two
stakes into the pot, so the pot grows every cycle and cannot pass the credits at the
table; a Vigo that cannot pay ends the round with a split (VF-9).

Bounded work
------------
Exact search is cheap without mercy (under 1,000 states, about 1 ms, at a default table)
but not with it: players who miss buy their way back in, the round runs on until the
Vigo's bank is drained, and every combination of the players' remaining banks is another
state. Exact solves of a default table's stake decision (5 seats, banks 20, limit 5)
measured about 8 to 15 s and 1.3 million states with Mercy and Rising Stakes, and about
80 s and 6.4 million states with Mercy alone. So a solve tries the `LEVELS` in turn, most
faithful first, each with a budget of new states, and keeps the first that fits:

* `unlimited_at=K`: a player whose bank at the start of the round, after its ante, covers
  at least K mercy payments in a row (at the stakes they would be paid at) is treated as
  never running short of mercy money this round; the others keep their exact banks, and
  if nobody reaches K the level is exact. A vote whose pot would pass all the credits at
  the table (impossible with real banks) is taken as a split, which ends such rounds. The
  model is off only where such a player would in truth run out of money for mercy.
* `horizon=H`: the survivors are assumed to split at any vote after H roll-agains in the
  round (counted from its start); a refusal at the last vote looked at is valued as one
  more pass whose votes all split.

A level is skipped without trying when the banks it keeps exact allow too many
combinations (`Level.combinations`), since it would only use up its budget. Measured
against exact solves (largest error in the Vigo's worth of a stake):

    5 seats, banks 20, Mercy                   K = 4   0.04 credit   about 0.15 s
    5 seats, banks 20, Mercy + Rising Stakes   K = 3   0.14 credit   about 0.15 s
    4 seats, banks 20, Mercy                   K = 6   0.04 credit   about 0.08 s
    4 seats, banks 20, Mercy + Rising Stakes   K = 4   0.22 credit   about 0.05 s

Three seats, and four with small banks, are solved exactly. Six or more seats with Mercy,
or banks of 100 and more with Mercy, fall to the horizon levels and take 0.3 to 1.5 s; their
values are only indicative (`is_exact(game)` is False). The level picked for a round is
remembered, so the later decisions of that round use the same model and are answered
from the tables.
"""

from __future__ import annotations

import math
import sys
import threading
from typing import NamedTuple

from cantina.games.vigo import Claim, Mercy, SetStake, VigoGame, VigoState, Vote

__all__ = [
    "EPSILON",
    "EXACT",
    "LEVELS",
    "MEMO_LIMIT",
    "Level",
    "choice",
    "clear_memo",
    "is_exact",
    "option_rows",
    "option_values",
    "values_for",
]

EPSILON = 1e-9
"""How much more an option must be worth to count as strictly better (see the ties)."""


class Level(NamedTuple):
    """How far one solve attempt simplifies (see Bounded work in the module docstring)."""

    unlimited_at: int
    """Players whose bank covers this many mercy payments in a row never run short."""
    unlimited_at_rising: int
    """The same under Rising Stakes, where each payment in a row costs one stake more."""
    horizon: int | None
    """Roll-agains in a round after which the survivors are assumed to split."""
    combinations: int | None
    """Skip this level when the players kept exact allow more combinations of remaining
    mercy payments than this (see `_combinations`); under Rising Stakes, a fifth of it."""
    budget: int | None
    """New solved states this attempt may add before giving way to the next level."""


EXACT = 1 << 30
"""An `unlimited_at` no bank reaches: every bank is kept exactly."""

LEVELS: tuple[Level, ...] = (
    Level(EXACT, EXACT, horizon=None, combinations=700, budget=60_000),
    Level(6, 4, horizon=None, combinations=500, budget=60_000),
    Level(4, 3, horizon=None, combinations=None, budget=100_000),
    Level(2, 2, horizon=4, combinations=None, budget=100_000),
    Level(1, 1, horizon=1, combinations=None, budget=None),
)
"""Solve attempts, most faithful first; the last always finishes.

The thresholds are tuned on measurements: a default table (5 seats, banks 20) with mercy
lands on the third level; 4 seats with banks 20 on the second; 3 seats, or 4 with banks
up to 8, are exact.
"""

MEMO_LIMIT = 200_000
"""Solved states kept between calls (about 420 bytes each); past this every table is
dropped before the next solve."""

UNLIMITED = 1 << 40
"""The bank, in units, of a player treated as never running short of mercy money."""

Values = tuple[float, ...]
"""Worths to (the Vigo, each survivor in order, each player still to roll in order)."""


class _OverBudget(Exception):
    """A solve attempt needed more new states than its level allows."""


_room = 0
"""New states the current solve attempt may still add."""


class _Solver:
    """Solved states for one context: bank unit, stake rise and pot ceiling.

    A state's players are one tuple of canonical banks, `banks[:k]` the survivors in the
    order they stayed and `banks[k:]` the players still to roll, in rolling order. Every
    method returns worths ordered (Vigo, then `banks` in order): a roll only moves `k`, or
    drops the player who is out.
    """

    __slots__ = ("ceiling", "rise", "seeks", "unit", "votes")

    def __init__(self, unit: int, rise: int, ceiling: int) -> None:
        self.unit = unit
        self.rise = rise
        self.ceiling = ceiling
        """A pot no real vote can reach; 0 when no player has unlimited mercy money."""
        self.seeks: dict[tuple, Values] = {}
        self.votes: dict[tuple, tuple[Values, Values, int]] = {}

    def seek(
        self, stake: int, pot: int, vigo: int, banks: tuple, k: int, depth: int | None
    ) -> Values:
        """Worths when the players `banks[k:]` are still to roll against the favor."""
        seeks = self.seeks
        key = (stake, pot, vigo, banks, k, depth)
        found = seeks.get(key)
        if found is not None:
            return found
        global _room
        _room -= 1
        if _room < 0:
            raise _OverBudget
        if k == len(banks):
            values = self.resolve(stake, pot, vigo, banks, depth)
        else:
            at = k + 1
            hit = seeks.get((stake, pot, vigo, banks, at, depth))
            if hit is None:
                hit = self.seek(stake, pot, vigo, banks, at, depth)
            miss = self.miss(stake, pot, vigo, banks, k, depth)[0]
            values = tuple([(a + b) * 0.5 for a, b in zip(hit, miss, strict=False)])
        seeks[key] = values
        return values

    def miss(
        self, stake: int, pot: int, vigo: int, banks: tuple, k: int, depth: int | None
    ) -> tuple[Values, Values | None, Values]:
        """Player `k` missed: (worths as it chooses, if it pays for mercy, if it is out).

        The middle entry is None when the player cannot cover the stake.
        """
        before = banks[:k]
        after = banks[k + 1 :]
        out = self.seek(stake, pot, vigo, before + after, k, depth)
        at = k + 1
        gone = (*out[:at], 0.0, *out[at:])
        cur = banks[k]
        need = stake // self.unit
        if cur < need:
            return gone, None, gone
        if cur < UNLIMITED:
            banks = (*before, cur - need, *after)
        stay = list(self.seek(stake, pot, vigo + stake, banks, at, depth))
        stay[0] += stake
        stay[at] -= stake
        paid = tuple(stay)
        return (paid if paid[at] > EPSILON else gone), paid, gone

    def resolve(self, stake: int, pot: int, vigo: int, surv: tuple, depth: int | None) -> Values:
        """VF-5 to VF-7 and VF-9 once every player of a pass has rolled."""
        n = len(surv)
        if n == 0:
            return (float(pot),)
        if n == 1:
            return (0.0, float(pot))
        due = stake * n
        if vigo < due:
            share, odd = divmod(pot + vigo, n)
            return (float(odd - vigo),) + (float(share),) * n
        if self.ceiling and pot + due > self.ceiling:
            # Only an unlimited player's overspending gets here; the model splits.
            share, odd = divmod(pot + due, n)
            return (float(odd - due),) + (float(share),) * n
        split, again, last = self.vote(stake, pot + due, vigo - due, surv, depth)
        chosen = split if last < 0 else again
        return (chosen[0] - due, *chosen[1:])

    def vote(
        self, stake: int, pot: int, vigo: int, surv: tuple, depth: int | None
    ) -> tuple[Values, Values, int]:
        """A vote after the Vigo's payment: (split worths, roll-again worths, last refuser).

        The last refuser is the highest position whose survivor strictly prefers to roll
        again, or -1; a vote that has reached position k splits exactly when k is past it.
        """
        key = (stake, pot, vigo, surv, depth)
        found = self.votes.get(key)
        if found is not None:
            return found
        n = len(surv)
        share, odd = divmod(pot, n)
        split = (float(odd),) + (float(share),) * n
        if depth is not None and depth < 0:  # past the horizon: nothing more is looked at
            found = (split, split, -1)
        else:
            deeper = None if depth is None else depth - 1
            again = self.seek(stake + self.rise, pot, vigo, surv, 0, deeper)
            last = -1
            if depth is None or depth > 0:
                for i in range(n - 1, -1, -1):
                    if again[i + 1] > split[i + 1] + EPSILON:
                        last = i
                        break
            found = (split, again, last)
        self.votes[key] = found
        return found


_solvers: dict[tuple[int, int, int], _Solver] = {}
_levels: dict[tuple, int] = {}
"""The level each round was solved at (by `_round_id`), so its later decisions match."""


def clear_memo() -> None:
    """Forget every solved state (to time a cold solve, or to free memory)."""
    _solvers.clear()
    _levels.clear()


def _size() -> int:
    return sum(len(s.seeks) + len(s.votes) for s in _solvers.values())


# --- from the engine's state to the canonical state --------------------------------------


def _mercies(bank: int, stake: int, rise: int) -> int:
    """How many mercy payments in a row `bank` covers, the first at `stake`."""
    if not rise:
        return max(bank, 0) // stake
    count = 0
    while bank >= stake:
        bank -= stake
        stake += rise
        count += 1
    return count


class _Frame(NamedTuple):
    """One decision translated for the solver at one level."""

    solver: _Solver
    depth: int | None
    unlimited: bool
    """Whether some player in the round is treated as having unlimited mercy money."""


def _frame(
    s: VigoState, level: Level, opening: int, stake: int, anted: list[int]
) -> tuple[_Frame, dict[int, int]]:
    """The solver context for a round opened at `opening`, and each player's canonical bank.

    Whether a player has unlimited mercy money is decided from its bank at the start of
    the round (`start_banks`), so every decision of a round sees the same model.
    """
    rise = opening if s.settings.rising_stakes else 0
    unit = math.gcd(stake, rise) if rise else stake
    banks: dict[int, int] = {}
    unlimited = False
    unlimited_at = level.unlimited_at_rising if rise else level.unlimited_at
    for seat in anted:
        if not s.settings.mercy:
            banks[seat] = 0
        elif _mercies(s.start_banks[seat] - opening, opening, rise) >= unlimited_at:
            banks[seat] = UNLIMITED
            unlimited = True
        else:
            banks[seat] = s.banks[seat] // unit
    ceiling = sum(s.banks) + s.pot if unlimited else 0
    solver = _solvers.get((unit, rise, ceiling))
    if solver is None:
        solver = _solvers[unit, rise, ceiling] = _Solver(unit, rise, ceiling)
    depth = None if level.horizon is None else level.horizon - s.roll_agains
    return _Frame(solver, depth, unlimited), banks


Row = tuple[float, ...]
"""One option's worth to every seat, in seat order."""


def _spread(s: VigoState, values: Values, seats: list[int], ante: int = 0) -> Row:
    """Worths in solver order to worths by seat, less an ante each player pays now."""
    out = [0.0] * s.settings.seats
    out[s.vigo] = values[0]
    for i, seat in enumerate(seats):
        out[seat] = values[i + 1] - ante
    return tuple(out)


def _anted(s: VigoState, stake: int) -> list[int]:
    """The players who can cover `stake`, clockwise from the Vigo's left (VF-2, VF-4)."""
    seats = s.settings.seats
    turn = ((s.vigo + k) % seats for k in range(1, seats))
    return [seat for seat in turn if s.banks[seat] >= stake]


def _stake_rows(game: VigoGame, level: Level) -> tuple[list[Row], bool]:
    s = game.state
    rows = []
    exact = True
    for option in game.pending.options:  # type: ignore[union-attr]
        assert isinstance(option, SetStake)
        stake = option.stake
        players = _anted(s, stake)
        frame, banks = _frame(s, level, stake, stake, players)
        # the banks after the ante, in units of the stake
        todo = tuple(
            b if b >= UNLIMITED or not s.settings.mercy else b - 1
            for b in (banks[p] for p in players)
        )
        pot = s.pot + stake * len(players)
        values = frame.solver.seek(stake, pot, s.banks[s.vigo], todo, 0, frame.depth)
        rows.append(_spread(s, values, players, stake))
        exact = exact and not frame.unlimited and frame.depth is None
    return rows, exact


def _mercy_rows(game: VigoGame, level: Level) -> tuple[list[Row], bool]:
    s = game.state
    frame, banks = _frame(s, level, s.opening_stake, s.stake, [*s.order])
    seats = [*s.survivors, s.turn, *s.to_roll]
    if not s.settings.mercy:  # only a loaded, inconsistent save asks: let it pay
        banks[s.turn] = UNLIMITED
    players = tuple(banks[p] for p in seats)
    k = len(s.survivors)
    _, stay, gone = frame.solver.miss(s.stake, s.pot, s.banks[s.vigo], players, k, frame.depth)
    paid = _spread(s, stay if stay is not None else gone, seats)
    not_paid = _spread(s, gone, seats)
    rows = [paid if o.pay else not_paid for o in game.pending.options]  # type: ignore[union-attr]
    return rows, not frame.unlimited and frame.depth is None


def _vote_rows(game: VigoGame, level: Level) -> tuple[list[Row], bool]:
    s = game.state
    frame, banks = _frame(s, level, s.opening_stake, s.stake, [*s.order])
    surv = tuple(banks[p] for p in s.survivors)
    depth = frame.depth
    if depth is not None and depth < 0:
        depth = 0  # a decision past the horizon still weighs one more pass
    split, again, last = frame.solver.vote(s.stake, s.pot, s.banks[s.vigo], surv, depth)
    # A split vote hands the decision on: the vote splits only if no later survivor
    # strictly prefers to roll again.
    after_split = _spread(s, split if last <= s.votes else again, s.survivors)
    refused = _spread(s, again, s.survivors)
    rows = [after_split if o.split else refused for o in game.pending.options]  # type: ignore[union-attr]
    return rows, not frame.unlimited and frame.depth is None


def _claim_rows(game: VigoGame, level: Level) -> tuple[list[Row], bool]:
    """VF-6: a claim gives the survivor the pot; any challenge is worth half to each."""
    s = game.state
    claim = _spread(s, (0.0, float(s.pot)), s.survivors[:1])
    challenge = _spread(s, (s.pot / 2, s.pot / 2), s.survivors[:1])
    rows = [claim if isinstance(o, Claim) else challenge for o in game.pending.options]  # type: ignore[union-attr]
    return rows, True


_BY_PHASE = {
    "stake": _stake_rows,
    "mercy": _mercy_rows,
    "vote": _vote_rows,
    "claim": _claim_rows,
    "raise": _claim_rows,
}

_RECURSION = 200_000
"""Recursion limit during a solve: a few Python frames per roll, and rounds run long."""


def _combinations(s: VigoState, level: Level) -> int:
    """How many combinations of remaining mercy payments the exact banks allow.

    The product, over the players kept exact at `level`, of one more than the payments
    in a row each bank covers at the start of the round; for a stake decision, the
    largest over the stakes offered. The solver's work grows roughly with it.
    """
    if not s.settings.mercy:
        return 1
    rising = s.settings.rising_stakes
    at = level.unlimited_at_rising if rising else level.unlimited_at
    stakes = range(1, s.settings.stake_limit + 1) if s.phase == "stake" else [s.opening_stake]
    most = 1
    for stake in stakes:
        players = _anted(s, stake) if s.phase == "stake" else s.order
        product = 1
        for seat in players:
            count = _mercies(s.start_banks[seat] - stake, stake, stake if rising else 0)
            if count < at:
                product *= count + 1
        most = max(most, product)
    return most


def _skip(s: VigoState, level: Level) -> bool:
    """Whether `level` would surely run out of budget here, so is not worth trying."""
    if level.combinations is None:
        return False
    cap = level.combinations // 5 if s.settings.rising_stakes else level.combinations
    return _combinations(s, level) > cap


def _round_id(s: VigoState) -> tuple:
    return (s.settings, tuple(s.start_banks), s.vigo, s.round)


_LOCK = threading.RLock()
"""One solve at a time: the tables and the budget are module-wide, and the AI's thinking
and a Review's analysis run in threads of their own."""


def _rows(game: VigoGame) -> tuple[list[Row], bool]:
    """Every option's worth to every seat, and whether they are exact."""
    if game.pending is None:
        raise ValueError("the round is over: no decision is pending")
    with _LOCK:
        return _rows_locked(game)


def _rows_locked(game: VigoGame) -> tuple[list[Row], bool]:
    global _room
    s = game.state
    if _size() > MEMO_LIMIT or len(_levels) > MEMO_LIMIT:
        clear_memo()
    rows_at = _BY_PHASE[s.phase]
    round_id = _round_id(s)
    first = _levels.get(round_id, 0)
    limit = sys.getrecursionlimit()
    # 3.11 keeps Python-to-Python calls off the C stack, so a high limit is safe here.
    sys.setrecursionlimit(max(limit, _RECURSION))
    try:
        for index in range(first, len(LEVELS)):
            level = LEVELS[index]
            if index < len(LEVELS) - 1 and _skip(s, level):
                continue
            _room = (1 << 62) if level.budget is None else level.budget
            try:
                found = rows_at(game, level)
            except (_OverBudget, RecursionError):
                continue
            _levels[round_id] = index
            return found
        raise AssertionError("the last level has no budget, so it cannot give way")
    finally:
        sys.setrecursionlimit(limit)


def option_values(game: VigoGame) -> tuple[float, ...]:
    """Each pending option's expected worth to the deciding seat, in the options' order.

    Worth is credits still to receive minus credits still to pay this round, under the
    model of the module docstring.
    """
    rows, _ = _rows(game)
    seat = game.pending.seat  # type: ignore[union-attr]
    return tuple(row[seat] for row in rows)


def option_rows(game: VigoGame) -> list[tuple[float, ...]]:
    """Each pending option's expected worth to every seat, in seat order (the analysis
    values every seat's position at once)."""
    return _rows(game)[0]


def values_for(game: VigoGame, seat: int) -> tuple[float, ...]:
    """Each pending option's expected worth to `seat` (0 for a seat not in the round)."""
    rows, _ = _rows(game)
    return tuple(row[seat] for row in rows)


def is_exact(game: VigoGame) -> bool:
    """Whether the values for the pending decision are exact (no simplifying level)."""
    return _rows(game)[1]


def choice(game: VigoGame) -> int:
    """The index of the option the model assumes the deciding seat takes.

    The option of highest worth; among options within `EPSILON` of it, not paying for
    mercy, voting to split, and otherwise the first (the smallest stake or raise).
    """
    values = option_values(game)
    options = game.pending.options  # type: ignore[union-attr]
    best = max(values)
    near = [i for i, v in enumerate(values) if v >= best - EPSILON]
    for i in near:
        if options[i] == Mercy(False) or options[i] == Vote(True):
            return i
    return near[0]
