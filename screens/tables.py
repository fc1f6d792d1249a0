"""Which screen plays which game."""

from __future__ import annotations

from typing import Any

from cantina.live import LiveTable
from cantina.seating import TableSetup
from screens.table import TableScreen


def table_screen(table: LiveTable | TableSetup, **options: Any) -> TableScreen:
    """The game's table screen; `options` go to `TableScreen` (which seats act here, and
    whether this screen plays the AI seats)."""
    game = table.setup.game if isinstance(table, LiveTable) else table.game
    if game == "vigo":
        from screens.vigo import VigoScreen

        return VigoScreen(table, **options)
    if game == "valdes":
        from screens.valdes import ValDesScreen

        return ValDesScreen(table, **options)
    from screens.victim import VictimScreen

    return VictimScreen(table, **options)
