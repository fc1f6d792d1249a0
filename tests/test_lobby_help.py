"""The back room's help (`?` in the lobby) is whole on an 80 x 24 screen."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static

from cantina.app import CantinaApp
from screens.lobby_help import LOBBY_HELP, LobbyHelpScreen


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    """Each test gets its own preferences folder."""
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


async def test_the_lobby_help_fits_80_by_24_without_scrolling():
    """Every paragraph, the last (rejoin codes, closing tables) included, is on screen at
    once at 80 x 24: a player reads it all without finding out that it scrolls."""
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(LobbyHelpScreen())
        await pilot.pause()
        await pilot.pause()
        scroll = app.screen.query_one(VerticalScroll)
        assert scroll.max_scroll_y == 0, f"{scroll.virtual_size.height} rows in {scroll.size}"
        text = str(app.screen.query_one("#lobby-help-text", Static).render())
        assert "rejoin code" in text and LOBBY_HELP[-1] in text
