"""The Settings screen: changes are applied and remembered; looking changes nothing."""

from __future__ import annotations

import os

import pytest
from textual.widgets import Select

from cantina.app import CantinaApp
from screens.settings import SettingsScreen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


@pytest.mark.parametrize(
    "written",
    [
        b'{"theme": "nope", "animation": 5, "pace": -3, "bell": "yes"}',  # damaged
        b'{"theme": "cantina-amber", "animation": "fast", "bell": false, "pace": 0.3}',
    ],
    ids=["damaged", "hand-edited"],
)
async def test_opening_the_settings_and_leaving_writes_nothing(tmp_path, written):
    """A preferences file the app could not read is reported and left alone "until the
    player saves again" (cantina/preferences.py); a hand-edited pace between the offered
    ones is kept. Opening Settings and going back is not saving: it wrote the defaults, or
    the nearest pace, over the file, three times."""
    file = tmp_path / "config" / "preferences.json"
    file.parent.mkdir()
    file.write_bytes(written)
    os.utime(file, (1_000_000_000, 1_000_000_000))
    app = CantinaApp(animation_speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
    assert file.read_bytes() == written
    assert file.stat().st_mtime == 1_000_000_000


async def test_a_setting_changed_is_applied_and_remembered(tmp_path):
    app = CantinaApp(animation_speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        pace = app.screen.query_one("#pace", Select)
        pace.value = 1.0
        await pilot.pause()
        assert app.pace.beat == 1.0 and app.preferences.pace == 1.0
    again = CantinaApp(animation_speed=0)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.preferences.pace == 1.0
