"""Which screen plays which game."""

from __future__ import annotations

from typing import Any

from cantina.games.table import Game
from cantina.seating import TableSetup
from screens.table import TableScreen


def table_screen(setup: TableSetup, game: Game[Any] | None = None) -> TableScreen:
    if setup.game == "vigo":
        from screens.vigo import VigoScreen

        return VigoScreen(setup, game)
    if setup.game == "valdes":
        from screens.valdes import ValDesScreen

        return ValDesScreen(setup, game)
    from screens.victim import VictimScreen

    return VictimScreen(setup, game)
