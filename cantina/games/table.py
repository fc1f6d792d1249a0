"""The contract every game's state machine keeps, so any kind of seat can drive any game.

A game holds plain-data state and the table's `Dice`. `pending` names the one decision it
awaits (which seat, what kind, the legal options); `apply(seat, action)` checks the action
against it, changes the state and returns the events. Local seats, AI seats, save files and
remote seats all go through `apply`, so no caller can bend a rule.
"""

from __future__ import annotations

import abc
import enum
import functools
from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Generic, Self, TypeVar

import msgspec

from cantina.games.dice import Dice, DiceState
from cantina.games.events import Eliminated, Event, GameOver
from cantina.text import plain_reason


class Kind(enum.StrEnum):
    """What a pending decision asks for, in words a narrator can use as they are."""

    SET_STAKE = "set the stake"
    CLAIM_OR_CHALLENGE = "claim or challenge"
    CHOOSE_RAISE = "choose a raise"
    VOTE = "vote split or roll"
    MERCY = "pay for mercy"
    CALL = "call Val or Des"
    PLAN = "choose target and die"


class Action(msgspec.Struct, frozen=True, tag=True):
    """Base of every choice a seat can make; options compare and hash by value."""


class Decision(msgspec.Struct, frozen=True):
    """The single decision a game awaits: `seat` must pick one of `options`."""

    seat: int
    kind: Kind
    options: tuple[Action, ...]


class Move(msgspec.Struct, frozen=True):
    """One decision as made, which is what a replay or a save records."""

    seat: int
    action: Action


class IllegalAction(ValueError):
    """An action that is not among the pending decision's options, or from the wrong seat."""


class CorruptState(ValueError):
    """Saved data that decodes but describes no position the rules can reach."""


StartingBank = Annotated[
    int,
    msgspec.Meta(
        ge=0,
        le=1_000_000,
        title="Starting bank",
        description="Credits each seat starts with (a campaign carries them on).",
        extra={"offer": (5, 50), "start": True},
    ),
]
"""The starting bank of the games played for credits (CA-1), one setting wherever it is."""

S = TypeVar("S", bound=msgspec.Struct)


class Snapshot(msgspec.Struct, Generic[S], frozen=True):
    """Everything needed to continue a table exactly: its game, state and random source."""

    game: str
    dice: DiceState
    state: S


class Game(abc.ABC, Generic[S]):
    """Base of the three games: validation, pending bookkeeping and JSON round trips.

    Subclasses provide `_decide` (the pending decision derived from the state), `_act`
    (carry out a validated action, appending events) and `_problems` (structural checks
    for loaded state, so a hostile save fails with a message instead of deep in a rule).
    """

    game_id: ClassVar[str]
    state_type: ClassVar[type[msgspec.Struct]]
    settings_type: ClassVar[type[msgspec.Struct]]
    action_type: ClassVar[Any]
    key_moments: ClassVar[tuple[type[Event], ...]] = (Eliminated, GameOver)
    """The events a result recalls as the game's key moments."""

    __slots__ = ("_pending", "dice", "opening_events", "state")

    def __init__(self, state: S, dice: Dice, opening_events: Iterable[Event] = ()) -> None:
        self.state = state
        self.dice = dice
        self.opening_events: list[Event] = list(opening_events)
        """What happened on its own before the first decision (antes, initiative rolls)."""
        self._pending = self._decide()

    @property
    def pending(self) -> Decision | None:
        """The decision awaited, or None when the game is over (see the state's result)."""
        return self._pending

    @property
    def over(self) -> bool:
        return self._pending is None

    @property
    def result(self) -> Any:
        """How the finished game came out, or None while it goes on (each game's own type)."""
        return getattr(self.state, "result", None)

    @abc.abstractmethod
    def next_game(self) -> Game[S]:
        """What follows this finished game at a table that plays on (not a campaign, whose
        rounds are set up from its record): the same random source carries on. Each game
        says what it carries: the title, the banks, the last Victim."""

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Carry out `action` for `seat` and return what happened.

        An action from the wrong seat, or not among the options, raises `IllegalAction`
        before anything changes.
        """
        decision = self._pending
        if decision is None or seat != decision.seat or action not in decision.options:
            raise self._refusal(seat, action)
        events: list[Event] = []
        self._act(action, events)
        self._pending = self._decide()
        return events

    def _refusal(self, seat: int, action: Action) -> IllegalAction:
        """Why `action` from `seat` is refused, in words that name what was expected."""
        decision = self._pending
        if decision is None:
            return IllegalAction(f"the {self.game_id} game is over: no decision is pending")
        if seat != decision.seat:
            return IllegalAction(
                f"seat {seat} cannot act now: waiting for seat {decision.seat} to {decision.kind}"
            )
        expected = ", ".join(repr(option) for option in decision.options)
        return IllegalAction(
            f"{action!r} is not a legal option for seat {seat} to {decision.kind}; "
            f"expected one of: {expected}"
        )

    @abc.abstractmethod
    def _decide(self) -> Decision | None:
        """The pending decision, derived from the state alone."""

    @abc.abstractmethod
    def _act(self, action: Action, events: list[Event]) -> None:
        """Carry out an already validated action, appending what happened to `events`."""

    @abc.abstractmethod
    def _problems(self) -> list[str]:
        """What is structurally wrong with a loaded state, each naming its field."""

    def to_json(self) -> bytes:
        return msgspec.json.encode(Snapshot(self.game_id, self.dice.state(), self.state))

    @classmethod
    def from_json(cls, data: bytes | str) -> Self:
        """Load a table saved by `to_json`; damaged data raises ValueError naming the field."""
        try:
            snap = msgspec.json.decode(data, type=Snapshot[cls.state_type])  # type: ignore[name-defined]
        except (msgspec.DecodeError, UnicodeDecodeError) as err:
            raise CorruptState(str(err)) from None
        if snap.game != cls.game_id:
            raise CorruptState(f"this is a {snap.game!r} table, not {cls.game_id!r} - at `$.game`")
        game = cls.__new__(cls)
        game.state = snap.state
        try:
            game.dice = Dice.from_state(snap.dice)
        except ValueError as err:
            raise CorruptState(f"{err} - at `$.dice`") from None
        game.opening_events = []
        problems = game._problems()
        if problems:
            raise CorruptState("; ".join(problems))
        game._pending = game._decide()
        return game

    def clone(self) -> Self:
        """An independent copy (state and random source), for look-ahead and tests."""
        return type(self).from_json(self.to_json())


T = TypeVar("T", bound=msgspec.Struct)


@functools.lru_cache(maxsize=256)
def checked(settings: T) -> T:
    """`settings` checked against their schema's bounds, which struct constructors skip.

    Settings are frozen, so a check is cached: tables are made often, settings rarely.
    """
    try:
        return msgspec.convert(msgspec.structs.asdict(settings), type(settings))
    except msgspec.ValidationError as err:
        raise ValueError(f"invalid table settings: {plain_reason(str(err))}") from None


def play_moves(game: Game[Any], moves: Iterable[Move]) -> list[Event]:
    """Apply recorded moves in order: replaying a table from its seed and its decisions."""
    events: list[Event] = []
    for move in moves:
        events.extend(game.apply(move.seat, move.action))
    return events
