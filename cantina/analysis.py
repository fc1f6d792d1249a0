"""What each decision cost and what the dice gave: a game's skill apart from its luck.

GNU Backgammon's analysis, for our three games. Every state of a game has an Expert
valuation for each seat (`Valuer`): what the seat can expect from here, the seat itself
playing the Expert's best from now on. A game is a walk through such states, and every
change in a seat's valuation along it is one of:

* its own decision: the chosen option's value minus the value of the Expert's option,
  never more than zero: the **equity given up** (its skill, summed);
* a die: the value after the roll minus the value before it, each before-value the
  average over the die's faces of what would follow: the **luck** of that die;
* another seat's decision: outside the seat's control, so counted with its luck (in
  Victim! the Expert reads other seats' play as chances from their temperaments, so these
  average out; in Vigo's Favor it models every seat as an Expert, so other seats'
  mistakes show here).

Summed over a game these changes telescope: skill + luck = the seat's result minus its
expectation at the start, exactly (up to float rounding), which the tests check on
thousands of games. Where a model simplifies (Vigo's Favor with Mercy on a big table, see
`vigo_odds`) a step's dice may not average exactly to the value the decision gave; that
difference, `drift`, is kept apart and counted with luck, so the identity still holds.

Units: credits at Vigo's Favor (the round), win chance at Victim! (the match) and, at
Val-Des, points: a call is right one time in two whatever is called, so no call costs
anything and its analysis is luck alone.

Rules core: nothing here imports textual. Values come from `cantina.ai` (the source of the
table's odds readout), so the analysis and the AI agree by construction.
"""

from __future__ import annotations

import functools
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cantina.ai import victim_odds, vigo_odds
from cantina.ai.player import TableAI
from cantina.ai.temperament import Temperament, temperament
from cantina.games.dice import Dice
from cantina.games.events import Event, Rolled
from cantina.games.table import Action, Game, Move
from cantina.games.valdes import (
    REGULATION_SETS,
    STREAK_BONUS,
    Call,
    ValDesGame,
    longest_run,
)
from cantina.games.victim import (
    NEUTRAL_DIE,
    SABOTAGE_DIE,
    SEATS,
    SUPPORT_DIE,
    Plan,
    VictimGame,
    target_seat,
)
from cantina.games.vigo import (
    Challenge,
    Claim,
    Mercy,
    Raise,
    SetStake,
    VigoGame,
    Vote,
)

Values = tuple[float, ...]
"""One number per seat."""

UNITS = {"vigo": "credits", "victim": "win chance", "valdes": "points"}
NO_DECISIONS = (
    "Val-Des: every call is right one time in two, whatever is called, so no call costs "
    "anything; this analysis is luck alone."
)


# --- what an analysis holds ------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionReview:
    """One decision: every option's Expert value to the seat deciding, and the choice."""

    move: int
    """Which move of the game (1 is the first)."""
    seat: int
    kind: str
    options: tuple[str, ...]
    values: Values
    best: int
    """The Expert's option (ties go where the Expert's model sends them)."""
    chosen: int
    targets: tuple[int | None, ...] = ()
    """The seat each option aims at, where an option names a direction rather than a seat
    (Victim!'s cards: "support left"), so a review can say whom; None for the others."""

    @property
    def cost(self) -> float:
        """Equity given up: the best option's value less the chosen one's (0 or more)."""
        return max(0.0, self.values[self.best] - self.values[self.chosen])


@dataclass(frozen=True)
class RollReview:
    """One die: who rolled what, and the change it made to every seat's valuation."""

    move: int
    seat: int
    die: str
    face: str | int
    luck: Values


@dataclass
class SeatReview:
    """One seat's account: expectation at the start, result, and what came between."""

    seat: int
    start: float
    result: float
    skill: float = 0.0
    """Equity given up by its own decisions (0 or less)."""
    dice: float = 0.0
    others: float = 0.0
    """What the other seats' decisions did to its valuation."""
    drift: float = 0.0
    """Where a simplified model's dice do not average to its decision's value."""

    @property
    def luck(self) -> float:
        """Everything the seat did not decide: the dice and the other seats' choices."""
        return self.dice + self.others + self.drift

    @property
    def beyond(self) -> float:
        """Result minus expectation at the start: skill + luck."""
        return self.result - self.start


@dataclass
class Review:
    """A whole game analysed."""

    game: str
    unit: str
    seats: list[SeatReview]
    decisions: list[DecisionReview] = field(default_factory=list)
    rolls: list[RollReview] = field(default_factory=list)
    finished: bool = True

    @property
    def decides(self) -> bool:
        """Whether any decision of this game can cost anything (not at Val-Des)."""
        return self.game != "valdes"

    def mistakes(self) -> list[DecisionReview]:
        """The decisions, biggest cost first (then in the order played)."""
        return sorted(self.decisions, key=lambda d: (-d.cost, d.move))


# --- option words ------------------------------------------------------------------------


def option_label(action: Action) -> str:
    """Short plain words for an option, as a review lists it."""
    match action:
        case SetStake(stake=stake):
            return f"stake {stake}"
        case Mercy(pay=pay):
            return "pay for mercy" if pay else "fall out"
        case Claim():
            return "claim"
        case Challenge():
            return "challenge"
        case Raise(stakes=stakes):
            return f"raise {stakes}"
        case Vote(split=split):
            return "split" if split else "roll again"
        case Call(colour=colour):
            return "Val" if colour == "red" else "Des"
        case Plan(direction=direction, die=die):
            return f"{die} {direction}"
    return type(action).__name__.lower()


def target_of(game: Game[Any], action: Action) -> int | None:
    """The seat a Victim! card aims at as the decision is made (left and right name no
    seat on their own); None for an option that aims at nobody."""
    if isinstance(action, Plan) and isinstance(game, VictimGame):
        return game.target_of(action.direction)
    return None


def format_value(unit: str, value: float, *, signed: bool = False, places: int = 2) -> str:
    """A value in its unit: win chance in percent (to one place fewer), credits and points
    to `places` places. A value that rounds to zero shows as zero, never "-0.0%" (the
    Expert's skill, a float rounding error below zero, read as a mistake)."""
    sign = "+" if signed else ""
    if unit == "win chance":
        return f"{value * 100:{sign}z.{max(places - 1, 0)}f}%"
    return f"{value:{sign}z.{places}f}"


# --- valuations ------------------------------------------------------------------------------


class Valuer(ABC):
    """The Expert's valuation of a game's states for every seat, and of a decision's
    options; `seat_values` of a finished game is its result in the same unit."""

    @abstractmethod
    def seat_values(self, game: Game[Any]) -> Values:
        """What each seat can expect from this state on, the Expert playing it."""

    @abstractmethod
    def option_rows(self, game: Game[Any]) -> tuple[list[Values], int]:
        """Each option's value to every seat, and the Expert's option's index."""

    def chance_values(
        self, before: bytes, game: Game[Any], action: Action, faces: Sequence[str | int]
    ) -> list[Values]:
        """The valuation before each die of a move and after the last: `len(faces) + 1`
        entries. `before` is the state where `action` was chosen, encoded."""
        return _enumerated(self, before, type(game), action, faces)


class VigoValuer(Valuer):
    """Expected bank at the end of the round, everyone playing `vigo_odds`' model."""

    def seat_values(self, game: Game[Any]) -> Values:
        assert isinstance(game, VigoGame)
        banks = game.state.banks
        if game.pending is None:
            return tuple(float(b) for b in banks)
        rows, best = self.option_rows(game)
        return rows[best]

    def option_rows(self, game: Game[Any]) -> tuple[list[Values], int]:
        assert isinstance(game, VigoGame)
        rows = vigo_odds.option_rows(game)
        banks = game.state.banks
        absolute = [tuple(b + w for b, w in zip(banks, row, strict=True)) for row in rows]
        return absolute, vigo_odds.choice(game)


class ValDesValuer(Valuer):
    """Expected points of the seven sets (VD-3), the streak bonus included (VD-4): each
    call still to be revealed is worth 1/2 and the bonus its chance. Tie-break points only
    decide who leads, so they are not counted. No call changes a value."""

    def seat_values(self, game: Game[Any]) -> Values:
        assert isinstance(game, ValDesGame)
        s = game.state
        over = s.tie_break or s.result is not None
        known = REGULATION_SETS if over else s.set_number - 1
        left = REGULATION_SETS - known
        values = [0.0] * s.settings.seats
        for seat in s.players:
            record = s.record[seat]
            values[seat] = (
                record.bit_count() + 0.5 * left + STREAK_BONUS * _bonus_chance(record, known)
            )
        return tuple(values)

    def option_rows(self, game: Game[Any]) -> tuple[list[Values], int]:
        here = self.seat_values(game)
        assert game.pending is not None
        return [here] * len(game.pending.options), 0


@functools.cache
def _bonus_chance(record: int, known: int) -> float:
    """The chance that a regulation record with `known` sets revealed ends with a run of
    three (VD-4), each call still to come right one time in two."""
    left = REGULATION_SETS - known
    hits = sum(longest_run(record | (rest << known)) >= 3 for rest in range(1 << left))
    return hits / (1 << left)


# --- Victim! ---------------------------------------------------------------------------------

_EXPERT: Temperament | None = None


def _expert() -> Temperament:
    global _EXPERT
    if _EXPERT is None:
        _EXPERT = temperament("Expert")
    return _EXPERT


@functools.lru_cache(maxsize=64)
def _seat_ai(temperaments: tuple[Temperament | None, ...], seat: int) -> TableAI:
    """A table's AI with `seat` played by the Expert: its valuation for that seat. Kept,
    so the solved odds serve every game with these temperaments."""
    with_expert = list(temperaments)
    with_expert[seat] = _expert()
    return TableAI(with_expert)


class VictimValuer(Valuer):
    """Win chance, for each seat in turn: that seat playing the Expert's best reply, the
    others as their temperaments play (a person as `HUMAN_MODEL`)."""

    def __init__(self, temperaments: Sequence[Temperament | None]) -> None:
        self.ais = [_seat_ai(tuple(temperaments), seat) for seat in range(SEATS)]

    def _solutions(self, game: VictimGame) -> list[victim_odds.VictimSolution]:
        return [ai.solution(game) for ai in self.ais]

    def seat_values(self, game: Game[Any]) -> Values:
        assert isinstance(game, VictimGame)
        s = game.state
        if s.result is not None:
            return tuple(1.0 if seat == s.result.winner else 0.0 for seat in range(SEATS))
        key = victim_odds.key_of(s)
        return tuple(sol.win(key)[seat] for seat, sol in enumerate(self._solutions(game)))

    def option_rows(self, game: Game[Any]) -> tuple[list[Values], int]:
        assert isinstance(game, VictimGame) and game.pending is not None
        key = victim_odds.key_of(game.state)
        sols = self._solutions(game)
        per_seat = [sol.plan_values_for(key, seat) for seat, sol in enumerate(sols)]
        rows = [tuple(per_seat[seat][i] for seat in range(SEATS)) for i in range(len(per_seat[0]))]
        decider = game.pending.seat
        best = sols[decider].best_plan(key)
        return rows, game.pending.options.index(best)

    def chance_values(
        self, before: bytes, game: Game[Any], action: Action, faces: Sequence[str | int]
    ) -> list[Values]:
        assert isinstance(game, VictimGame) and isinstance(action, Plan)
        start = msgspec.json.decode(before, type=type(game.state))
        key = victim_odds.key_of(start)
        health, attacker, supporter, victim = key
        target = target_seat(supporter, action.direction)
        at_attacker = target == attacker
        sols = self._solutions(game)
        after: dict[tuple[int, int], Values] = {}
        for dv in range(3):
            for ds in range(2):
                h = list(health)
                h[victim] = max(0, h[victim] - dv)
                h[supporter] = max(0, h[supporter] - ds)
                if h[victim] == 0:
                    after[dv, ds] = tuple(1.0 if s == attacker else 0.0 for s in range(SEATS))
                    continue
                if h[supporter] == 0:
                    continue  # the Neutral die never takes the last point (VI-6)
                nxt = (
                    (h[0], h[1], h[2]),
                    (attacker + 1) % SEATS,
                    (victim + 1) % SEATS,
                    (supporter + 1) % SEATS,
                )
                after[dv, ds] = tuple(sol.win(nxt)[seat] for seat, sol in enumerate(sols))
        at_one = health[supporter] == 1
        out = []
        for t in range(len(faces) + 1):
            dist = _turn_dist(action.die, at_attacker, at_one, tuple(faces[:t]))
            out.append(
                tuple(sum(p * after[o][seat] for o, p in dist.items()) for seat in range(SEATS))
            )
        return out


_SUPPORT_FACES = {"support": SUPPORT_DIE, "sabotage": SABOTAGE_DIE}


@functools.lru_cache(maxsize=20_000)
def _turn_dist(
    die: str, at_attacker: bool, at_one: bool, known: tuple[str | int, ...]
) -> dict[tuple[int, int], float]:
    """One Victim! turn's damage (to the Victim, to the Supporter) given the dice known so
    far, in the order the engine rolls them: four battle d6 (VI-4), then the Neutral die
    once or twice (VI-6) or, unless the battle was won on the dice alone, the Support or
    Sabotage die and its d12 (VI-5). Damage to the Victim is uncapped here."""
    battle = known[:4]
    rest = known[4:]
    dist: dict[tuple[int, int], float] = {}
    unknown = 4 - len(battle)
    weight = 1.0 / 6**unknown
    for tail in itertools.product(range(1, 7), repeat=unknown):
        a1, a2, v1, v2 = (*battle, *tail)  # type: ignore[misc]
        for outcome, p in _support_dist(
            die,
            at_attacker,
            at_one,
            int(a1) + int(a2),
            int(v1) + int(v2),
            a1 == a2 == 6,
            v1 == v2 == 1,
            rest if not unknown else (),
        ).items():
            dist[outcome] = dist.get(outcome, 0.0) + weight * p
    return dist


@functools.lru_cache(maxsize=20_000)
def _support_dist(
    die: str,
    at_attacker: bool,
    at_one: bool,
    attack: int,
    defence: int,
    six: bool,
    one: bool,
    known: tuple[str | int, ...],
) -> dict[tuple[int, int], float]:
    automatic = six or one
    double = 1 if six and one else 0
    dist: dict[tuple[int, int], float] = {}

    def add(outcome: tuple[int, int], p: float) -> None:
        dist[outcome] = dist.get(outcome, 0.0) + p

    if die == "neutral":
        hit = 1 if automatic or attack > defence else 0
        firsts = [known[0]] if known else list(NEUTRAL_DIE)
        for first in firsts:
            p1 = 1.0 / len(firsts)
            if first != "red":
                add((double + hit, 0), p1)
                continue
            seconds = [known[1]] if len(known) > 1 else list(NEUTRAL_DIE)
            for second in seconds:
                p2 = p1 / len(seconds)
                wound = 1 if second == "red" and not at_one else 0
                add((double + hit, wound), p2)
        return dist
    if automatic:
        return {(double + 1, 0): 1.0}
    faces = [known[0]] if known else list(_SUPPORT_FACES[die])
    for face in faces:
        p1 = 1.0 / len(faces)
        if face == "white":
            add((1 if attack > defence else 0, 0), p1)
            continue
        rolls = [int(known[1])] if len(known) > 1 else list(range(1, 13))
        for roll in rolls:
            p2 = p1 / len(rolls)
            delta = roll // 2 if face == "green" else -((roll + 1) // 2)
            a, d = (attack + delta, defence) if at_attacker else (attack, defence + delta)
            add((1 if a > d else 0, 0), p2)
    return dist


# --- dice, one at a time, for the games with few -----------------------------------------


class _NeedRoll(Exception):
    def __init__(self, faces: Sequence[str | int]) -> None:
        self.faces = faces


class _ProbeDice(Dice):
    """Dice that show the faces given, then stop the move to ask for the next."""

    __slots__ = ("_faces", "_used")

    def __init__(self, faces: Sequence[str | int]) -> None:
        super().__init__(0)
        self._faces = faces
        self._used = 0

    def _next(self, faces: Sequence[str | int]) -> Any:
        if self._used >= len(self._faces):
            raise _NeedRoll(faces)
        self._used += 1
        return self._faces[self._used - 1]

    def cube(self) -> Any:
        return self._next(("red", "blue"))

    def d6(self) -> int:
        return int(self._next(range(1, 7)))

    def d12(self) -> int:
        return int(self._next(range(1, 13)))

    def face(self, faces: Sequence[str]) -> str:
        return str(self._next(faces))


def _enumerated(
    valuer: Valuer,
    before: bytes,
    kind: type[Game[Any]],
    action: Action,
    faces: Sequence[str | int],
) -> list[Values]:
    """Values before each die of a move and after the last, by playing the move again
    with every face each die could show (a few dozen at most in these games)."""
    state_type = kind.state_type
    memo: dict[tuple[str | int, ...], Values] = {}

    def value(prefix: tuple[str | int, ...]) -> Values:
        found = memo.get(prefix)
        if found is not None:
            return found
        game = kind(msgspec.json.decode(before, type=state_type), _ProbeDice(prefix))
        assert game.pending is not None
        try:
            game.apply(game.pending.seat, action)
        except _NeedRoll as need:
            outcomes = [value((*prefix, face)) for face in need.faces]
            share = 1.0 / len(outcomes)
            found = tuple(sum(v[s] for v in outcomes) * share for s in range(len(outcomes[0])))
        else:
            found = valuer.seat_values(game)
        memo[prefix] = found
        return found

    return [value(tuple(faces[:t])) for t in range(len(faces) + 1)]


# --- a game analysed -------------------------------------------------------------------------


def valuer_for(game_id: str, temperaments: Sequence[Temperament | None]) -> Valuer:
    if game_id == "vigo":
        return VigoValuer()
    if game_id == "valdes":
        return ValDesValuer()
    return VictimValuer(temperaments)


def faces_of(events: Sequence[Event]) -> list[str | int]:
    """The faces the dice showed, in the order they were rolled."""
    return [e.face for e in events if isinstance(e, Rolled)]


def analyse(
    start: Game[Any],
    moves: Sequence[Move],
    temperaments: Sequence[Temperament | None],
    step_faces: Sequence[Sequence[str | int]] | None = None,
    *,
    on_step: Callable[[int, int], None] | None = None,
) -> Review:
    """Analyse a game from the state it started in (after its opening) and its moves.

    `start` is not changed. The dice are read from `step_faces` (the faces each move's
    dice showed) or, without it, by playing the moves on a copy of `start` with its own
    random source. `on_step(done, total)` is told of progress, for a long analysis."""
    kind = type(start)
    if step_faces is None:
        replay = start.clone()
        step_faces = [faces_of(replay.apply(m.seat, m.action)) for m in moves]
    game = kind(
        msgspec.json.decode(msgspec.json.encode(start.state), type=kind.state_type), Dice(0)
    )
    valuer = valuer_for(kind.game_id, temperaments)
    here = valuer.seat_values(game)
    seats = [SeatReview(seat, value, value) for seat, value in enumerate(here)]
    review = Review(kind.game_id, UNITS[kind.game_id], seats)
    for number, (move, faces) in enumerate(zip(moves, step_faces, strict=True), start=1):
        decision = game.pending
        assert decision is not None and decision.seat == move.seat
        rows, best = valuer.option_rows(game)
        chosen = decision.options.index(move.action)
        review.decisions.append(
            DecisionReview(
                move=number,
                seat=decision.seat,
                kind=str(decision.kind),
                options=tuple(option_label(o) for o in decision.options),
                values=tuple(row[decision.seat] for row in rows),
                best=best,
                chosen=chosen,
                targets=tuple(target_of(game, o) for o in decision.options),
            )
        )
        for seat in seats:
            change = rows[chosen][seat.seat] - here[seat.seat]
            if seat.seat == decision.seat:
                seat.skill += change
            else:
                seat.others += change
        before = msgspec.json.encode(game.state)
        chance = valuer.chance_values(before, game, move.action, faces)
        for seat in seats:
            seat.drift += chance[0][seat.seat] - rows[chosen][seat.seat]
        rolled = [e for e in _scripted(game, move, faces) if isinstance(e, Rolled)]
        for t, event in enumerate(rolled):
            luck = tuple(a - b for a, b in zip(chance[t + 1], chance[t], strict=True))
            review.rolls.append(RollReview(number, event.seat, event.die, event.face, luck))
            for seat in seats:
                seat.dice += luck[seat.seat]
        here = valuer.seat_values(game)
        for seat in seats:  # the model's last word and the state's own value agree
            seat.drift += here[seat.seat] - chance[-1][seat.seat]
        if on_step is not None:
            on_step(number, len(moves))
    for seat in seats:
        seat.result = here[seat.seat]
    review.finished = game.pending is None
    return review


def _scripted(game: Game[Any], move: Move, faces: Sequence[str | int]) -> list[Event]:
    """Play `move` on `game` with its dice showing `faces`."""
    game.dice = _ProbeDice(faces)
    return game.apply(move.seat, move.action)


@dataclass(frozen=True)
class GameRecord:
    """What an analysis needs of a game, copied from its table: the state its play began
    in, the moves, each move's dice and the seats' temperaments."""

    start: Game[Any]
    moves: tuple[Move, ...]
    faces: tuple[tuple[str | int, ...], ...]
    temperaments: tuple[Temperament | None, ...]

    def analyse(self, on_step: Callable[[int, int], None] | None = None) -> Review:
        return analyse(self.start, self.moves, self.temperaments, self.faces, on_step=on_step)


def record_of(table: Any) -> GameRecord:
    """The current game of a `LiveTable`, copied from its log (quick: the analysis
    itself can then run in another thread while the table plays on)."""
    kind = type(table.game)
    steps = [*table.steps, len(table.log)]
    return GameRecord(
        start=kind(table.opening_state(), Dice(0)),
        moves=tuple(table.moves),
        faces=tuple(
            tuple(faces_of(table.log[steps[k] : steps[k + 1]])) for k in range(1, len(steps) - 1)
        ),
        temperaments=tuple(table.setup.temperaments()),
    )


def analyse_table(table: Any) -> Review:
    """The current game of a `LiveTable` analysed, from its log."""
    return record_of(table).analyse()
