"""Which screen shows which game: the one the game's registry entry names."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from cantina.dealer import Dealer, Place
from cantina.games import GAMES
from screens.table import TableScreen


def screen_class(game: str) -> type[TableScreen]:
    """The table screen of `game`, imported when first wanted: each game's screen loads
    with its first table (the registry names it, so a new game adds no branch here)."""
    module, _, name = GAMES[game].screen.partition(":")
    found = getattr(import_module(module), name)
    if not (isinstance(found, type) and issubclass(found, TableScreen)):
        raise TypeError(f"{GAMES[game].screen} is not a table screen")
    return found


def screen_for(dealer: Dealer, place: Place, **options: Any) -> TableScreen:
    """The game's table screen following `dealer`, for a viewer at `place`."""
    return screen_class(dealer.table.setup.game)(dealer, place, **options)
