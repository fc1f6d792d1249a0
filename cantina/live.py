"""A table in play: its game, the moves made in it, and the whole story of the game.

Local people, AI seats, a resumed save and remote SSH seats all submit their choices here,
so the record of moves, the autosave of a campaign and every screen following the table
see the same decisions in the same order.

The table also keeps the current game's whole event log, step by step (the opening, then
the events of each decision) with the state each step left. So any screen that starts
following a table late (a spectator at turn 30, a player who rejoins, a resumed campaign,
a replay) draws the same board and tells the same story as one that was there from the
start, and a screen shown the log only up to some event (the turn driver paces them)
draws the state as it stood then. Nothing here imports textual.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

import msgspec

from cantina.ai.player import TableAI
from cantina.games.dice import Dice
from cantina.games.events import POT, Event, HealthChanged, Scored, Transfer
from cantina.games.table import Action, Game, Move
from cantina.seating import TableSetup

Listener = Callable[[Sequence[Event]], None]


class Keeper(Protocol):
    """Who keeps a table's record between decisions (a campaign), if anyone."""

    @property
    def over(self) -> bool:
        """Whether the series has ended (no next game will come)."""

    def recorded(self, table: LiveTable) -> None:
        """After each decision: keep the table as it now stands (autosave)."""

    def next_game(self, table: LiveTable) -> Game[Any]:
        """The next round, game or match of the series."""

    def status(self, table: LiveTable) -> str:
        """Where the series stands, for the table's status line."""


class Moment(NamedTuple):
    """A key moment of a game, and how many times the same thing happened in it."""

    event: Event
    times: int = 1


class LiveTable:
    """A game and its seats, the moves and events of the game so far, and who is told."""

    def __init__(
        self,
        setup: TableSetup,
        game: Game[Any] | None = None,
        *,
        keeper: Keeper | None = None,
        ai_dice: Dice | None = None,
    ) -> None:
        self.setup = setup
        self.ai = TableAI(setup.temperaments())
        self.ai_dice = ai_dice if ai_dice is not None else Dice(ai_seed(setup.seed))
        """The AI seats' own random source: apart from the table's dice, so the moves
        alone replay a game, and saved with it, so a resumed table's AI chooses as it
        would have."""
        self.keeper = keeper
        self.number = 1
        """Which game this is at the table: the next game is a new story (and a screen
        that sees the number change starts drawing it afresh)."""
        self._listeners: list[Listener] = []
        self._begin(game if game is not None else setup.new_game())

    @classmethod
    def resumed(
        cls,
        setup: TableSetup,
        start: Game[Any],
        moves: Iterable[Move],
        *,
        keeper: Keeper | None = None,
        ai_dice: Dice | None = None,
    ) -> LiveTable:
        """The table of a game that began as `start` and has had `moves` made since,
        rebuilt with its whole story, as if it had been there from the start. Nothing is
        recorded or announced on the way (IllegalAction for a move the rules refuse)."""
        table = cls(setup, start, ai_dice=ai_dice)
        for move in moves:
            table._apply(move.seat, move.action)
        table.keeper = keeper
        return table

    def _begin(self, game: Game[Any]) -> None:
        self.game: Game[Any] = game
        self.moves: list[Move] = []
        """The decisions made in the current game, in order: with its start, its replay."""
        self.log: list[Event] = list(game.opening_events)
        """Everything that has happened in the current game, in order."""
        self.steps: list[int] = [0]
        """Where each step of the log begins: step 0 is the opening, step k the events of
        the k-th move."""
        self._after: list[bytes] = [msgspec.json.encode(game.state)]
        """The state each step left, encoded (a copy the game's own cannot change)."""
        self._view: tuple[int, int, Any] | None = None

    @property
    def campaign(self) -> bool:
        return self.keeper is not None

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Be told the events of every decision and every new game; returns the way out."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def ai_move(self, game: Game[Any] | None = None) -> Action:
        """The AI's choice for the pending seat of `game` (by default the table's own; a
        copy, when thinking in another thread while the table may change). It changes
        only the AI's own dice."""
        return self.ai.choose(game if game is not None else self.game, self.ai_dice)

    def submit(self, seat: int, action: Action) -> list[Event]:
        """Apply one decision (IllegalAction, and no change, when it is not on offer),
        record it, let the keeper save it, then tell every listener."""
        events = self._apply(seat, action)
        if self.keeper is not None:
            self.keeper.recorded(self)
        self._tell(events)
        return events

    def _apply(self, seat: int, action: Action) -> list[Event]:
        events = self.game.apply(seat, action)
        self.moves.append(Move(seat, action))
        self.steps.append(len(self.log))
        self.log.extend(events)
        self._after.append(msgspec.json.encode(self.game.state))
        return events

    def next_game(self) -> list[Event]:
        """Start the next round, game or match (ValueError when the series cannot go on)."""
        if self.game.pending is not None:
            raise ValueError("the current game is not over yet")
        game = self.keeper.next_game(self) if self.keeper is not None else self.game.next_game()
        self.number += 1
        self._begin(game)
        events = list(self.log)
        self._tell(events)
        return events

    def status(self) -> str:
        return self.keeper.status(self) if self.keeper is not None else ""

    def key_moments(self) -> list[Moment]:
        """The events of this game a result recalls, the same for every viewer: each one
        once, where it first happened, with how many times it did (a vote that fails six
        times over is one moment, not six)."""
        kinds = type(self.game).key_moments
        moments: dict[Event, int] = {}
        for event in self.log:
            if isinstance(event, kinds):
                moments[event] = moments.get(event, 0) + 1
        return [Moment(event, times) for event, times in moments.items()]

    def opening_state(self) -> Any:
        """A copy of the state the current game began its play in (after its opening), so
        the game can be analysed again from there with its moves and the log's dice."""
        return msgspec.json.decode(self._after[0], type=type(self.game.state))

    def state_at(self, shown: int) -> Any:
        """The game's state as a viewer who has been shown the first `shown` events of
        the log sees it: the state the last whole step left, with the figures (banks, the
        pot, health, scores) that the events shown since have moved, so nothing on a board
        tells what the dice are still to tell. Read it; do not change it."""
        if shown >= len(self.log):
            return self.game.state
        if self._view is not None and self._view[:2] == (self.number, shown):
            return self._view[2]
        step = bisect.bisect_right(self.steps, shown) - 1
        begins = self.steps[step]
        state_type = type(self.game.state)
        if step == 0:  # the opening happened as the game was made: undo its figures
            ends = self.steps[1] if len(self.steps) > 1 else len(self.log)
            state = msgspec.json.decode(self._after[0], type=state_type)
            for event in reversed(self.log[:ends]):
                move_figures(state, event, undo=True)
        else:
            state = msgspec.json.decode(self._after[step - 1], type=state_type)
        for event in self.log[begins:shown]:
            move_figures(state, event)
        self._view = (self.number, shown, state)
        return state

    def _tell(self, events: Sequence[Event]) -> None:
        for listener in list(self._listeners):
            listener(events)


def move_figures(state: Any, event: Event, *, undo: bool = False) -> None:
    """Move the figures an event reports (credits, health, scores) in `state`, or back.

    Not a rule: the events say what moved and by how much; this is their bookkeeping, so
    a board can show each payment as it is told. The tests check that a step's events
    moved this way give the figures the rules left."""
    sign = -1 if undo else 1
    if isinstance(event, Transfer):
        for account, change in ((event.source, -event.amount), (event.target, event.amount)):
            if account == POT:
                state.pot += sign * change
            else:
                state.banks[account] += sign * change
    elif isinstance(event, HealthChanged):
        state.health[event.seat] = event.health - (event.delta if undo else 0)
    elif isinstance(event, Scored):
        state.scores[event.seat] = event.total - (event.points if undo else 0)


def ai_seed(seed: int) -> int:
    """The AI's seed at a table with this seed: fixed by it, yet a stream of its own."""
    return random.Random(f"cantina-ai:{seed}").getrandbits(63)
