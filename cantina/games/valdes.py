"""Val-Des: a whole game, from the antes to the pot changing hands.

Every seat taking part calls Val (red) or Des (blue) each set, and a correct call is worth a
point; the rulings VD-1 to VD-6 are the spec. One game is one state machine whose only
decision is a call, so the seat to act and its two options follow from the state alone.

Where the rulings are silent, this module decides:

- The cube is drawn from the table's dice at the reveal, after the last call, not when the
  set starts. Under the cup nobody sees it, the Caster included (VD-2), so drawing it later
  changes no odds and the state never holds a hidden face that a screen, a save file or a
  remote seat could leak.
- Tie-break sets (VD-5) are cast by the contending seats only: the title passes clockwise
  from the previous set's Caster to the next seat still contending, so a seat that has
  fallen behind neither casts nor calls again.
- The Scorekeeper only fixes where the first Caster sits. If the Scorekeeper's seat sat out
  (it could not cover the ante), the first Caster is still the first taking-part seat
  clockwise from it.
- A tie-break has no set limit: VD-5 plays on until one seat leads, so contenders who keep
  making the same call keep the tie alive. Any set where their calls differ can end it, and
  with random or independent calls that happens with probability one; a driver whose AI
  seats copy one another can loop forever.
- With no ante every seat takes part, whatever its bank. The losers named at the end are the
  other seats that took part; seats that sat out neither win nor lose.
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

from cantina.games.dice import Colour, Dice
from cantina.games.events import POT, Event, GameOver, Rolled, SatOut, Scored, Transfer
from cantina.games.table import Action, Decision, Game, Kind, StartingBank, checked

REGULATION_SETS: Final = 7
"""A game is seven regulation sets (VD-3); tie-break sets come after them."""
STREAK_NEEDED: Final = 3
"""Correct calls in a row, within the regulation sets, that earn the bonus (VD-4)."""
STREAK_BONUS: Final = 2
"""The bonus points, awarded at most once per seat per game (VD-4)."""
MAX_SEATS: Final = 8

CALL_NAMES: Final[dict[Colour, str]] = {"red": "Val", "blue": "Des"}
"""What players say at the table for each colour of the cube."""


def call_name(colour: Colour) -> str:
    """'Val' for red, 'Des' for blue: the words a screen should use for a call."""
    return CALL_NAMES[colour]


Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS - 1)]
Credits = Annotated[int, msgspec.Meta(ge=0)]
Record = Annotated[int, msgspec.Meta(ge=0, lt=1 << REGULATION_SETS)]


class ValDesSettings(msgspec.Struct, frozen=True, kw_only=True):
    """A table's choices, made before play. `ante` 0 means the game is played for no pot."""

    seats: Annotated[int, msgspec.Meta(ge=2, le=MAX_SEATS)] = 4
    scorekeeper: Seat = 0
    ante: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=100,
            title="Ante",
            description="Credits each seat puts in the pot to play; 0 plays for no pot.",
            extra={"offer": (0, 5)},
        ),
    ] = 0
    starting_bank: StartingBank = 20


# --- actions -----------------------------------------------------------------------------


class Call(Action, frozen=True):
    """A seat's call for this set: red is Val, blue is Des."""

    colour: Colour

    @property
    def label(self) -> str:
        return CALL_NAMES[self.colour]


CALL_OPTIONS: tuple[Action, ...] = (Call("red"), Call("blue"))

_DECISIONS: tuple[Decision, ...] = tuple(
    Decision(seat, Kind.CALL, CALL_OPTIONS) for seat in range(MAX_SEATS)
)
"""Every decision this game can await, built once: a call is the same choice for any seat."""


# --- events ------------------------------------------------------------------------------


class SetStarted(Event, frozen=True):
    """A set begins with `caster` shaking the cube; `tie_break` once past set 7 (VD-5)."""

    set_number: int
    caster: int
    tie_break: bool


class Called(Event, frozen=True):
    """A seat announced its call, so every later caller knows it (VD-2)."""

    seat: int
    colour: Colour


class TieBreak(Event, frozen=True):
    """The lead is shared by `seats`: only they play the next set (VD-5)."""

    seats: tuple[int, ...]


# --- state -------------------------------------------------------------------------------


class ValDesResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a finished game came out, for the campaign record."""

    winner: Seat
    points: tuple[int, ...]
    """Each seat's final score, bonuses and tie-break points included."""
    bonus_seats: tuple[int, ...]
    """The seats awarded the streak bonus (VD-4)."""
    pot_won: Credits


class ValDesState(msgspec.Struct, kw_only=True):
    """Plain data for one game; per-seat lists have one entry for every seat at the table."""

    settings: ValDesSettings
    banks: list[Credits]
    pot: Credits = 0
    players: list[Seat]
    """The seats taking part (those that covered the ante, VD-6), in seat order."""
    callers: list[Seat]
    """The seats contending this set in calling order: clockwise from the Caster's left
    round to the Caster, who calls last. Every player in a regulation set; in a tie-break
    only the leaders (VD-5)."""
    caster: Seat
    set_number: Annotated[int, msgspec.Meta(ge=1)] = 1
    tie_break: bool = False
    calls: list[Colour] = []
    """This set's calls so far: `calls[i]` was made by `callers[i]`."""
    turn: Seat
    """The seat that calls next: `callers[len(calls)]`."""
    scores: list[Credits]
    reveals: list[Colour] = []
    """Every set's cube, in order: the slate a screen shows and superstitious seats read."""
    record: list[Record]
    """Each seat's regulation sets as bits: bit k is set when its call in set k + 1 was
    correct. The streak bonus (VD-4) is a run of three set bits; see `longest_run`."""
    result: ValDesResult | None = None


def longest_run(record: int) -> int:
    """The most correct calls in a row in a seat's regulation `record` (VD-4)."""
    run = 0
    while record:
        record &= record << 1  # every run of set bits loses one
        run += 1
    return run


_EARNS_BONUS: tuple[bool, ...] = tuple(
    longest_run(record) >= STREAK_NEEDED for record in range(1 << REGULATION_SETS)
)
"""Whether each possible regulation record earns the streak bonus, worked out once."""


def _call_order(seats: list[int], caster: int) -> list[int]:
    """`seats` (in seat order, the Caster among them) as they call: Caster's left first."""
    i = seats.index(caster) + 1
    return seats[i:] + seats[:i]


class ValDesGame(Game[ValDesState]):
    """One game of Val-Des (VD-1 to VD-6); see the module's notes for the open questions.

    The state keeps the contending seats in calling order (`callers`), so the cup passing
    left is a rotation of that list and the next Caster is always its first seat: the
    seat clockwise after the Caster who just called last.
    """

    game_id = "valdes"
    state_type = ValDesState
    settings_type = ValDesSettings
    key_moments = (TieBreak, GameOver)
    action_type = Call

    __slots__ = ()

    @classmethod
    def new(
        cls, settings: ValDesSettings, dice: Dice, banks: list[int] | None = None
    ) -> ValDesGame:
        """Seat the table and collect the antes (VD-6); the first set then awaits a call.

        Raises ValueError when the settings or banks make no sense, or fewer than two seats
        can take part.
        """
        settings = checked(settings)
        seats = settings.seats
        if settings.scorekeeper >= seats:
            raise ValueError(f"the Scorekeeper must be one of seats 0 to {seats - 1}")
        if banks is None:
            banks = [settings.starting_bank] * seats
        if len(banks) != seats:
            raise ValueError(f"{len(banks)} banks given for {seats} seats")
        if min(banks) < 0:
            raise ValueError(f"banks cannot be negative: {banks}")
        banks = list(banks)
        ante = settings.ante
        events: list[Event] = []
        players: list[int] = []
        pot = 0
        for seat in range(seats):
            if banks[seat] >= ante:
                players.append(seat)
                if ante:
                    banks[seat] -= ante
                    pot += ante
                    events.append(Transfer(seat, POT, ante, "ante"))
            else:
                events.append(SatOut(seat, "cannot cover the ante", ante, banks[seat], "game"))
        if len(players) < 2:
            raise ValueError(
                f"Val-Des needs two seats that can cover the ante of {ante}; "
                f"only {len(players)} can"
            )
        # VD-1: the first Caster is the first player clockwise from the Scorekeeper
        first = next((i for i, seat in enumerate(players) if seat > settings.scorekeeper), 0)
        callers = players[first + 1 :] + players[: first + 1]
        caster = callers[-1]
        events.append(SetStarted(1, caster, False))
        state = ValDesState(
            settings=settings,
            banks=banks,
            pot=pot,
            players=players,
            callers=callers,
            caster=caster,
            turn=callers[0],
            scores=[0] * seats,
            record=[0] * seats,
        )
        return cls(state, dice, opening_events=events)

    @property
    def result(self) -> ValDesResult | None:
        return self.state.result

    def next_game(self) -> ValDesGame:
        """A new game at the same table: the banks carried, the same random source."""
        s = self.state
        if s.result is None:
            raise ValueError("the game is not over yet")
        return ValDesGame.new(s.settings, self.dice, banks=s.banks)

    # --- the state machine ---------------------------------------------------------------

    def _decide(self) -> Decision | None:
        s = self.state
        if s.result is not None:
            return None
        return _DECISIONS[s.turn]

    def _act(self, action: Action, events: list[Event]) -> None:
        s = self.state
        colour: Colour = action.colour  # type: ignore[attr-defined]
        calls = s.calls
        calls.append(colour)
        events.append(Called(s.turn, colour))
        made = len(calls)
        if made < len(s.callers):
            s.turn = s.callers[made]
        else:  # the Caster, last, has called
            self._reveal(events)

    def _reveal(self, events: list[Event]) -> None:
        """VD-2: lift the cup and score; then the next set, the bonuses or the end."""
        s = self.state
        face = self.dice.cube()  # drawn now, not at the set's start: see the module notes
        s.reveals.append(face)
        events.append(Rolled(s.caster, "cube", face, "reveal"))
        scores = s.scores
        callers = s.callers
        calls = s.calls
        if s.tie_break:
            for seat, colour in zip(callers, calls, strict=False):
                if colour == face:
                    scores[seat] += 1
                    events.append(Scored(seat, 1, scores[seat], "correct call"))
        else:
            record = s.record
            bit = 1 << (s.set_number - 1)
            for seat, colour in zip(callers, calls, strict=False):
                if colour == face:
                    scores[seat] += 1
                    record[seat] |= bit
                    events.append(Scored(seat, 1, scores[seat], "correct call"))
            if s.set_number < REGULATION_SETS:
                calls.clear()
                callers.append(callers.pop(0))  # the cup passes left (VD-1)
                self._next_set(events)
                return
            for seat in s.players:  # VD-4, once, after the last regulation set
                if _EARNS_BONUS[record[seat]]:
                    scores[seat] += STREAK_BONUS
                    events.append(Scored(seat, STREAK_BONUS, scores[seat], "streak bonus"))
        calls.clear()
        top = max([scores[seat] for seat in callers])
        # in calling order, so the first leader is the next contender left of the Caster
        leaders = [seat for seat in callers if scores[seat] == top]
        if len(leaders) == 1:
            self._finish(leaders[0], events)
            return
        s.tie_break = True  # VD-5: only the leaders go on, one set at a time
        events.append(TieBreak(tuple(sorted(leaders))))
        leaders.append(leaders.pop(0))
        s.callers = leaders
        self._next_set(events)

    def _next_set(self, events: list[Event]) -> None:
        """Open the next set with `callers` already in its calling order (Caster last)."""
        s = self.state
        s.set_number += 1
        s.caster = caster = s.callers[-1]
        s.turn = s.callers[0]
        events.append(SetStarted(s.set_number, caster, s.tie_break))

    def _finish(self, winner: int, events: list[Event]) -> None:
        """VD-6: the one leader takes the pot and the game ends."""
        s = self.state
        pot = s.pot
        if pot:
            s.banks[winner] += pot
            s.pot = 0
            events.append(Transfer(POT, winner, pot, "won the pot"))
        bonus = tuple(seat for seat in s.players if _EARNS_BONUS[s.record[seat]])
        s.result = ValDesResult(
            winner=winner, points=tuple(s.scores), bonus_seats=bonus, pot_won=pot
        )
        losers = tuple(seat for seat in s.players if seat != winner)
        events.append(GameOver(winners=(winner,), losers=losers))

    # --- loading -------------------------------------------------------------------------

    def _problems(self) -> list[str]:
        s = self.state
        seats = s.settings.seats
        problems: list[str] = []
        if s.settings.scorekeeper >= seats:
            problems.append(
                f"no seat {s.settings.scorekeeper} among {seats} seats"
                " - at `$.state.settings.scorekeeper`"
            )
        for name in ("banks", "scores", "record"):
            values = getattr(s, name)
            if len(values) != seats:
                problems.append(
                    f"{name} has {len(values)} entries for {seats} seats - at `$.state.{name}`"
                )
            if any(value < 0 for value in values):
                problems.append(f"{name} has a negative entry - at `$.state.{name}`")
        if s.pot < 0:
            problems.append("a negative pot - at `$.state.pot`")
        if s.players != sorted(set(s.players)) or any(seat >= seats for seat in s.players):
            problems.append(
                "players must list seats of this table once each, in seat order"
                " - at `$.state.players`"
            )
        if len(s.players) < 2:
            problems.append("players needs at least two seats - at `$.state.players`")
        callers = s.callers
        if len(callers) < 2 or len(set(callers)) != len(callers):
            problems.append("callers needs two or more different seats - at `$.state.callers`")
        elif not set(callers) <= set(s.players):
            problems.append("a caller that is not taking part - at `$.state.callers`")
        elif callers != _call_order(sorted(callers), callers[-1]):
            problems.append(
                "callers are not in clockwise order ending with the Caster - at `$.state.callers`"
            )
        if problems:
            return problems  # the checks below rely on the shapes checked above
        if s.caster != callers[-1]:
            problems.append(
                f"seat {callers[-1]} calls last, so it is the Caster, not seat {s.caster}"
                " - at `$.state.caster`"
            )
        if s.tie_break:
            if s.set_number <= REGULATION_SETS:
                problems.append(
                    f"a tie-break during regulation set {s.set_number} - at `$.state.tie_break`"
                )
        elif not 1 <= s.set_number <= REGULATION_SETS:
            problems.append(
                f"regulation set {s.set_number} of {REGULATION_SETS} - at `$.state.set_number`"
            )
        elif sorted(callers) != s.players:
            problems.append("every player calls in a regulation set - at `$.state.callers`")
        outsiders = [seat for seat in range(seats) if seat not in s.players]
        for name in ("scores", "record"):
            if any(getattr(s, name)[seat] for seat in outsiders):
                problems.append(f"a seat that sat out has {name} - at `$.state.{name}`")
        over = s.tie_break or s.result is not None  # every regulation set has been revealed
        revealed = REGULATION_SETS if over else s.set_number - 1
        if any(bits >> revealed for bits in s.record):
            problems.append(
                "a correct call recorded for a set not yet revealed - at `$.state.record`"
            )
        if any(score < bits.bit_count() for score, bits in zip(s.scores, s.record, strict=True)):
            problems.append("fewer points than correct calls recorded - at `$.state.scores`")
        played = s.set_number if s.result is not None else s.set_number - 1
        if len(s.reveals) != played:
            problems.append(
                f"{len(s.reveals)} cubes revealed after {played} sets - at `$.state.reveals`"
            )
        if len(s.calls) >= len(callers):
            problems.append(
                f"{len(s.calls)} calls in a set of {len(callers)} callers - at `$.state.calls`"
            )
        elif s.result is None and s.turn != callers[len(s.calls)]:
            problems.append(
                f"seat {callers[len(s.calls)]} calls next, not seat {s.turn} - at `$.state.turn`"
            )
        ante_pot = s.settings.ante * len(s.players)
        result = s.result
        if result is None:
            if s.pot != ante_pot:
                problems.append(
                    f"a pot of {s.pot} where the antes make {ante_pot} - at `$.state.pot`"
                )
            return problems
        if s.calls:
            problems.append("calls in a finished game - at `$.state.calls`")
        if s.pot != 0 or result.pot_won != ante_pot:
            problems.append("the pot was not paid out to the winner - at `$.state.pot`")
        top = max(s.scores)
        if s.scores[result.winner] != top or s.scores.count(top) != 1:
            problems.append(
                f"seat {result.winner} is not the only top scorer - at `$.state.result.winner`"
            )
        if list(result.points) != s.scores:
            problems.append("points differ from the scores - at `$.state.result.points`")
        return problems
