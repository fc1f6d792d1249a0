"""Vigo's Favor: one round at a table, from the Vigo's stake to the pot changing hands.

A round is one state machine. `next_round` starts the following round with the banks
carried and the title passed on (VF-11), or kept by a House Vigo (VF-13), so campaigns
chain rounds without knowing the rules of the title.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec

from cantina.games.dice import Colour, Dice
from cantina.games.events import (
    POT,
    Eliminated,
    Event,
    GameOver,
    Rolled,
    SatOut,
    Transfer,
)
from cantina.games.table import Action, Decision, Game, Kind, StartingBank, checked

MAX_RAISE = 3
"""A challenge raise is 1, 2 or 3 stakes (VF-6)."""
NO_ANTE = "cannot cover the ante"
"""Why a player sits a round out (VF-2), as `SatOut` reports it."""

Phase = Literal["stake", "mercy", "claim", "raise", "vote", "over"]
Outcome = Literal["no survivors", "claim", "challenge won", "challenge lost", "split"]


class VigoSettings(msgspec.Struct, frozen=True, kw_only=True):
    """A table's choices, made before play; the variants are VF-12, VF-13 and VF-14."""

    seats: Annotated[int, msgspec.Meta(ge=2, le=8)] = 5
    stake_limit: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=100,
            title="Stake limit",
            description="The most credits the Vigo may stake on a round.",
            extra={"offer": (1, 9)},
        ),
    ] = 5
    starting_bank: StartingBank = 20
    rising_stakes: Annotated[
        bool,
        msgspec.Meta(
            title="Rising Stakes",
            description="Each roll-again raises the stake by the round's opening stake.",
        ),
    ] = False
    house_vigo: Annotated[
        bool,
        msgspec.Meta(
            title="House Vigo",
            description="The Vigo is a house seat that never passes the title on.",
        ),
    ] = False
    mercy: Annotated[
        bool,
        msgspec.Meta(
            title="Vigo's Mercy",
            description="A seat about to fall out of favor may pay the Vigo a stake to stay.",
        ),
    ] = False


# --- actions -----------------------------------------------------------------------------


class SetStake(Action, frozen=True):
    """The Vigo's stake for the round, in credits."""

    stake: int


class Mercy(Action, frozen=True):
    """Pay one stake to the Vigo to stay in favor after a missed roll (VF-14), or not."""

    pay: bool


class Claim(Action, frozen=True):
    """The last survivor takes the pot and ends the round."""


class Challenge(Action, frozen=True):
    """The last survivor risks the pot on one more roll against a fresh favor (VF-6)."""


class Raise(Action, frozen=True):
    """The Vigo's challenge raise, in stakes (1 to 3)."""

    stakes: int


class Vote(Action, frozen=True):
    """A survivor's vote: split the pot (True) or roll again (False)."""

    split: bool


VigoAction = SetStake | Mercy | Claim | Challenge | Raise | Vote

MERCY_OPTIONS: tuple[Action, ...] = (Mercy(True), Mercy(False))
VOTE_OPTIONS: tuple[Action, ...] = (Vote(True), Vote(False))
CLAIM_ONLY: tuple[Action, ...] = (Claim(),)
CLAIM_OR_CHALLENGE: tuple[Action, ...] = (Claim(), Challenge())
RAISES: tuple[Action, ...] = tuple(Raise(k) for k in range(1, MAX_RAISE + 1))


# --- events ------------------------------------------------------------------------------


class StakeSet(Event, frozen=True):
    vigo: int
    stake: int


class InFavor(Event, frozen=True):
    """A player stays in the round: by matching the favor, or by paying for mercy."""

    seat: int
    mercy: bool = False


class Voted(Event, frozen=True):
    seat: int
    split: bool


class RollAgain(Event, frozen=True):
    """The vote failed: these survivors roll again, at `stake` (risen under VF-12)."""

    seats: tuple[int, ...]
    stake: int


class VigoShort(Event, frozen=True):
    """VF-9: the Vigo owes `due` (one stake per survivor) but has only `paid`, pays that,
    and the survivors `seats` split the pot at once, without a vote."""

    vigo: int
    due: int
    paid: int
    seats: tuple[int, ...]


class Challenged(Event, frozen=True):
    seat: int


class Raised(Event, frozen=True):
    """The Vigo's challenge raise, which the challenger matches."""

    stakes: int
    credits: int


class TitlePassed(Event, frozen=True):
    """Who is Vigo next round (VF-11)."""

    source: int
    target: int


# --- state -------------------------------------------------------------------------------


class VigoResult(msgspec.Struct, frozen=True):
    outcome: Outcome
    takers: tuple[int, ...]
    """The seats that took credits from the pot."""
    net: tuple[int, ...]
    """Each seat's bank change over the round."""
    next_vigo: int


class VigoState(msgspec.Struct, kw_only=True):
    """Plain data for one round; every list is in seat or clockwise order."""

    settings: VigoSettings
    round: int = 1
    vigo: int
    banks: list[int]
    start_banks: list[int]
    pot: int = 0
    phase: Phase = "stake"
    turn: int
    opening_stake: int = 0
    stake: int = 0
    favor: Colour | None = None
    order: list[int] = []
    """The players who anted, clockwise from the Vigo's left."""
    to_roll: list[int] = []
    survivors: list[int] = []
    votes: int = 0
    """Split votes cast so far in the current vote."""
    roll_agains: int = 0
    result: VigoResult | None = None


_STAKES: dict[int, tuple[Action, ...]] = {}


def _stake_options(limit: int) -> tuple[Action, ...]:
    options = _STAKES.get(limit)
    if options is None:
        options = _STAKES[limit] = tuple(SetStake(n) for n in range(1, limit + 1))
    return options


class VigoGame(Game[VigoState]):
    """One round of Vigo's Favor."""

    game_id = "vigo"
    state_type = VigoState
    settings_type = VigoSettings
    key_moments = (Challenged, RollAgain, VigoShort, TitlePassed, Eliminated, GameOver)
    action_type = VigoAction

    __slots__ = ()

    @classmethod
    def new(
        cls,
        settings: VigoSettings,
        dice: Dice,
        *,
        vigo: int = 0,
        banks: list[int] | None = None,
        round: int = 1,
    ) -> VigoGame:
        settings = checked(settings)
        if banks is None:
            if settings.starting_bank < 1:  # VF-2: every player would sit out every round
                raise ValueError(
                    "Vigo's Favor needs a starting bank of at least 1: the least stake is 1, "
                    "and a player who cannot cover it sits the round out"
                )
            banks = [settings.starting_bank] * settings.seats
        if len(banks) != settings.seats:
            raise ValueError(f"{len(banks)} banks given for {settings.seats} seats")
        if any(bank < 0 for bank in banks):
            raise ValueError(f"banks cannot be negative: {banks}")
        if not 0 <= vigo < settings.seats:
            raise ValueError(f"the Vigo must be one of seats 0 to {settings.seats - 1}")
        state = VigoState(
            settings=settings,
            round=round,
            vigo=vigo,
            turn=vigo,
            banks=list(banks),
            start_banks=list(banks),
        )
        return cls(state, dice)

    @property
    def result(self) -> VigoResult | None:
        return self.state.result

    def next_round(self) -> VigoGame:
        """The next round: banks carried, the title passed on, the same random source."""
        s = self.state
        if s.result is None:
            raise ValueError("the round is not over yet")
        return VigoGame.new(
            s.settings, self.dice, vigo=s.result.next_vigo, banks=s.banks, round=s.round + 1
        )

    def next_game(self) -> VigoGame:
        return self.next_round()

    def challenge_raises(self) -> int:
        """How many stakes both the Vigo and the survivor can cover, up to 3 (VF-6)."""
        s = self.state
        cover = min(s.banks[s.vigo], s.banks[s.survivors[0]]) // s.stake
        return min(cover, MAX_RAISE)

    # --- the state machine ---------------------------------------------------------------

    def _decide(self) -> Decision | None:
        s = self.state
        phase = s.phase
        if phase == "over":
            return None
        if phase == "stake":
            return Decision(s.vigo, Kind.SET_STAKE, _stake_options(s.settings.stake_limit))
        if phase == "mercy":
            return Decision(s.turn, Kind.MERCY, MERCY_OPTIONS)
        if phase == "vote":
            return Decision(s.turn, Kind.VOTE, VOTE_OPTIONS)
        if phase == "claim":
            options = CLAIM_OR_CHALLENGE if self.challenge_raises() else CLAIM_ONLY
            return Decision(s.turn, Kind.CLAIM_OR_CHALLENGE, options)
        return Decision(s.vigo, Kind.CHOOSE_RAISE, RAISES[: self.challenge_raises()])

    def _act(self, action: Action, events: list[Event]) -> None:
        _HANDLERS[type(action)](self, action, events)

    def _set_stake(self, action: SetStake, events: list[Event]) -> None:
        self._open(action.stake, events)

    def _mercy(self, action: Mercy, events: list[Event]) -> None:
        s = self.state
        seat = s.turn
        if action.pay:
            self._pay(seat, s.vigo, s.stake, "mercy", events)
            s.survivors.append(seat)
            events.append(InFavor(seat, mercy=True))
        else:
            events.append(Eliminated(seat, "missed the favor"))
        self._seek(events)

    def _vote(self, action: Vote, events: list[Event]) -> None:
        """VF-7: a split needs every vote; the first refusal sends everyone to roll again."""
        s = self.state
        events.append(Voted(s.turn, action.split))
        if action.split:
            s.votes += 1
            if s.votes == len(s.survivors):
                self._split(events)
            else:
                s.turn = s.survivors[s.votes]
            return
        s.roll_agains += 1
        if s.settings.rising_stakes:
            s.stake += s.opening_stake
        events.append(RollAgain(tuple(s.survivors), s.stake))
        s.to_roll = s.survivors
        s.survivors = []
        self._seek(events)

    def _claim(self, action: Claim, events: list[Event]) -> None:
        s = self.state
        self._pay(POT, s.turn, s.pot, "claim", events)
        self._end("claim", (s.turn,), events)

    def _challenge(self, action: Challenge, events: list[Event]) -> None:
        s = self.state
        events.append(Challenged(s.turn))
        s.phase = "raise"
        s.turn = s.vigo

    def _open(self, stake: int, events: list[Event]) -> None:
        """VF-2 to VF-4: stake, favor, antes, then the first pass of rolls."""
        s = self.state
        s.opening_stake = s.stake = stake
        events.append(StakeSet(s.vigo, stake))
        s.favor = self.dice.cube()
        events.append(Rolled(s.vigo, "cube", s.favor, "favor"))
        seats = s.settings.seats
        for offset in range(1, seats):
            seat = (s.vigo + offset) % seats
            if s.banks[seat] >= stake:
                self._pay(seat, POT, stake, "ante", events)
                s.order.append(seat)
            else:
                events.append(SatOut(seat, NO_ANTE, stake, s.banks[seat], "round"))
        s.to_roll = list(s.order)
        self._seek(events)

    def _seek(self, events: list[Event]) -> None:
        """Roll for the players still to roll, pausing where one may pay for mercy (VF-14)."""
        s = self.state
        favor = s.favor
        cube = self.dice.cube
        while s.to_roll:
            seat = s.to_roll.pop(0)
            face = cube()
            events.append(Rolled(seat, "cube", face, "seeking favor"))
            if face == favor:
                s.survivors.append(seat)
                events.append(InFavor(seat))
            elif s.settings.mercy and s.banks[seat] >= s.stake:
                s.phase = "mercy"
                s.turn = seat
                return
            else:
                events.append(Eliminated(seat, "missed the favor"))
        self._resolve(events)

    def _resolve(self, events: list[Event]) -> None:
        """VF-5 to VF-7 (and VF-9) on the survivors of a pass."""
        s = self.state
        survivors = s.survivors
        if not survivors:
            self._pay(POT, s.vigo, s.pot, "no survivors", events)
            self._end("no survivors", (s.vigo,), events)
            return
        if len(survivors) == 1:
            s.phase = "claim"
            s.turn = survivors[0]
            return
        due = s.stake * len(survivors)
        if s.banks[s.vigo] < due:
            paid = s.banks[s.vigo]
            self._pay(s.vigo, POT, paid, "one stake per survivor", events)
            events.append(VigoShort(s.vigo, due, paid, tuple(survivors)))
            self._split(events)
            return
        self._pay(s.vigo, POT, due, "one stake per survivor", events)
        s.phase = "vote"
        s.votes = 0
        s.turn = survivors[0]

    def _split(self, events: list[Event]) -> None:
        """VF-8: equal shares; what does not divide goes to the Vigo."""
        s = self.state
        share, rest = divmod(s.pot, len(s.survivors))
        for seat in s.survivors:
            self._pay(POT, seat, share, "split", events)
        self._pay(POT, s.vigo, rest, "split remainder", events)
        self._end("split", tuple(s.survivors), events)

    def _raise(self, action: Raise, events: list[Event]) -> None:
        """VF-6: raise and match, a fresh favor, one roll for the whole pot; no mercy."""
        s = self.state
        player = s.survivors[0]
        stakes = action.stakes
        credits = stakes * s.stake
        events.append(Raised(stakes, credits))
        self._pay(s.vigo, POT, credits, "challenge raise", events)
        self._pay(player, POT, credits, "challenge match", events)
        s.favor = self.dice.cube()
        events.append(Rolled(s.vigo, "cube", s.favor, "challenge favor"))
        face = self.dice.cube()
        events.append(Rolled(player, "cube", face, "challenge"))
        if face == s.favor:
            self._pay(POT, player, s.pot, "challenge won", events)
            self._end("challenge won", (player,), events)
        else:
            events.append(Eliminated(player, "lost the challenge"))
            self._pay(POT, s.vigo, s.pot, "challenge lost", events)
            self._end("challenge lost", (s.vigo,), events)

    def _pay(
        self,
        source: int | Literal["pot"],
        target: int | Literal["pot"],
        amount: int,
        why: str,
        events: list[Event],
    ) -> None:
        """Move credits; every payment goes through here, so VF-10 holds by construction."""
        if amount <= 0:
            return
        s = self.state
        if source == POT:
            s.pot -= amount
        else:
            s.banks[source] -= amount
        if target == POT:
            s.pot += amount
        else:
            s.banks[target] += amount
        events.append(Transfer(source, target, amount, why))

    def _end(self, outcome: Outcome, takers: tuple[int, ...], events: list[Event]) -> None:
        """Close the round and name the next Vigo: the first player who rolled (VF-11)."""
        s = self.state
        if s.settings.house_vigo:
            next_vigo = s.vigo
        elif s.order:
            next_vigo = s.order[0]
        else:
            next_vigo = (s.vigo + 1) % s.settings.seats
        net = tuple(now - before for now, before in zip(s.banks, s.start_banks, strict=True))
        s.result = VigoResult(outcome, takers, net, next_vigo)
        s.phase = "over"
        events.append(GameOver(winners=takers))
        if next_vigo != s.vigo:
            events.append(TitlePassed(s.vigo, next_vigo))

    def _problems(self) -> list[str]:
        s = self.state
        seats = s.settings.seats
        problems: list[str] = []
        for name in ("banks", "start_banks"):
            values = getattr(s, name)
            if len(values) != seats:
                problems.append(f"{len(values)} entries for {seats} seats - at `$.state.{name}`")
            if any(value < 0 for value in values):
                problems.append(f"a negative bank - at `$.state.{name}`")
        if s.pot < 0:
            problems.append("a negative pot - at `$.state.pot`")
        for name in ("vigo", "turn"):
            if not 0 <= getattr(s, name) < seats:
                problems.append(f"no seat {getattr(s, name)} at this table - at `$.state.{name}`")
        for name in ("order", "to_roll", "survivors"):
            if any(not 0 <= seat < seats or seat == s.vigo for seat in getattr(s, name)):
                problems.append(f"a seat that is not a player - at `$.state.{name}`")
        if problems:
            return problems
        if s.phase != "stake" and s.stake < 1:
            problems.append("no stake set in a round under way - at `$.state.stake`")
        if s.phase in ("claim", "raise") and len(s.survivors) != 1:
            problems.append("a challenge needs exactly one survivor - at `$.state.survivors`")
        if s.phase == "claim" and s.turn != s.survivors[0]:
            problems.append("the claim belongs to the survivor - at `$.state.turn`")
        if s.phase == "vote" and not (
            len(s.survivors) >= 2
            and 0 <= s.votes < len(s.survivors)
            and s.turn == s.survivors[s.votes]
        ):
            problems.append("the vote is not at a survivor's turn - at `$.state.votes`")
        if s.phase == "mercy" and s.turn not in s.order:
            problems.append("mercy for a seat that did not ante - at `$.state.turn`")
        if s.phase == "over" and s.result is None:
            problems.append("a finished round without a result - at `$.state.result`")
        if s.phase != "over" and s.result is not None:
            problems.append("a result for a round under way - at `$.state.result`")
        return problems


_HANDLERS: dict[type[Action], Callable[[VigoGame, Any, list[Event]], None]] = {
    SetStake: VigoGame._set_stake,
    Mercy: VigoGame._mercy,
    Vote: VigoGame._vote,
    Claim: VigoGame._claim,
    Challenge: VigoGame._challenge,
    Raise: VigoGame._raise,
}
"""Each action's handler, by its type: one lookup instead of a chain of isinstance."""
