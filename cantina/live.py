"""A table in play: the one place a decision is applied, whoever made it.

Local people, AI seats, a resumed save and remote SSH seats all submit their choices
here, so the record of moves, the autosave of a campaign and every watching screen see
the same decisions in the same order. Nothing here imports textual.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from cantina.ai.player import TableAI
from cantina.games.dice import Dice
from cantina.games.events import Event
from cantina.games.table import Action, Game, Move
from cantina.seating import TableSetup

Listener = Callable[[Sequence[Event]], None]


class Keeper(Protocol):
    """Who keeps a table's record between decisions (a campaign), if anyone."""

    def recorded(self, table: LiveTable) -> None:
        """After each decision: keep the table as it now stands (autosave)."""

    def next_game(self, table: LiveTable) -> Game[Any]:
        """The next round, game or match of the series."""

    def status(self, table: LiveTable) -> str:
        """Where the series stands, for the table's status line."""


class LiveTable:
    """A game and its seats, the moves made in it, and who is told of each decision."""

    def __init__(
        self,
        setup: TableSetup,
        game: Game[Any] | None = None,
        *,
        moves: Sequence[Move] = (),
        keeper: Keeper | None = None,
        ai_dice: Dice | None = None,
    ) -> None:
        self.setup = setup
        self.game: Game[Any] = game if game is not None else setup.new_game()
        self.ai = TableAI(setup.temperaments())
        self.ai_dice = ai_dice if ai_dice is not None else Dice(ai_seed(setup.seed))
        """The AI seats' own random source: apart from the table's dice, so the moves
        alone replay a game, and saved with it, so a resumed table's AI chooses as it
        would have."""
        self.moves: list[Move] = list(moves)
        """The decisions made in the current game, in order: with its start, its replay."""
        self.keeper = keeper
        self._listeners: list[Listener] = []

    @property
    def campaign(self) -> bool:
        return self.keeper is not None

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Be told the events of every decision and every new game; returns the way out."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def ai_move(self) -> Action:
        """The AI's choice for the pending seat (safe in a worker thread: it changes only
        the AI's own dice, and the game not at all)."""
        return self.ai.choose(self.game, self.ai_dice)

    def submit(self, seat: int, action: Action) -> list[Event]:
        """Apply one decision (IllegalAction, and no change, when it is not on offer),
        record it, let the keeper save it, then tell every listener."""
        events = self.game.apply(seat, action)
        self.moves.append(Move(seat, action))
        if self.keeper is not None:
            self.keeper.recorded(self)
        self._tell(events)
        return events

    def next_game(self) -> list[Event]:
        """Start the next round, game or match (ValueError when the series cannot go on)."""
        if self.game.pending is not None:
            raise ValueError("the current game is not over yet")
        if self.keeper is not None:
            game = self.keeper.next_game(self)
        else:
            game = _next_in_series(self.game)
        self.game = game
        self.moves = []
        events = list(game.opening_events)
        self._tell(events)
        return events

    def status(self) -> str:
        return self.keeper.status(self) if self.keeper is not None else ""

    def _tell(self, events: Sequence[Event]) -> None:
        for listener in list(self._listeners):
            listener(events)


def ai_seed(seed: int) -> int:
    """The AI's seed at a table with this seed: fixed by it, yet a stream of its own."""
    return random.Random(f"cantina-ai:{seed}").getrandbits(63)


def _next_in_series(game: Game[Any]) -> Game[Any]:
    """What follows a finished game at a table that is not a campaign: the same dice go on."""
    from cantina.games.valdes import ValDesGame
    from cantina.games.victim import VictimGame
    from cantina.games.vigo import VigoGame

    if isinstance(game, VigoGame):
        return game.next_round()
    if isinstance(game, VictimGame):
        return game.rematch()
    if isinstance(game, ValDesGame):
        s = game.state
        return ValDesGame.new(s.settings, game.dice, banks=s.banks)
    raise TypeError(f"no next game for {type(game).__name__}")
