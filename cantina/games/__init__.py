"""The rules core: the three games as state machines, and the catalogue that names them.

Nothing here imports textual: screens, AI seats, saves and remote seats all drive these
games through the same `pending` / `apply` interface.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from cantina.games.dice import Dice
from cantina.games.table import Game
from cantina.games.valdes import ValDesGame, ValDesSettings
from cantina.games.victim import VictimGame, VictimSettings
from cantina.games.vigo import VigoGame, VigoSettings


@dataclass(frozen=True)
class GameInfo:
    """What the app, `sim` and the benchmarks need to know about a game to set up a table."""

    id: str
    title: str
    unit: str
    """What one state machine plays through: a round, a game or a match."""
    game: type[Game[Any]]
    settings: type[msgspec.Struct]
    new: Callable[[Any, Dice], Game[Any]]

    def new_default(self, dice: Dice) -> Game[Any]:
        """A table with default settings."""
        return self.new(self.settings(), dice)


GAMES: dict[str, GameInfo] = {
    info.id: info
    for info in (
        GameInfo("vigo", "Vigo's Favor", "round", VigoGame, VigoSettings, VigoGame.new),
        GameInfo("valdes", "Val-Des", "game", ValDesGame, ValDesSettings, ValDesGame.new),
        GameInfo("victim", "Victim!", "match", VictimGame, VictimSettings, VictimGame.new),
    )
}
