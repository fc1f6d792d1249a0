"""Each button on the menu and the table setup does what its key does, clicked."""

from __future__ import annotations

import pytest

from cantina.app import CantinaApp
from screens.campaigns import CampaignsScreen, ChooseGameScreen
from screens.menu import MenuScreen
from screens.rules import RulesScreen
from screens.settings import SettingsScreen
from screens.setup import SetupScreen
from screens.table import TableScreen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def own_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CANTINA_SAVE_DIR", str(tmp_path / "saves"))


def quiet_app() -> CantinaApp:
    return CantinaApp(animation_speed=0, pace=0, save_preferences=False)


@pytest.mark.parametrize(
    ("button", "shown"),
    [
        ("#play-vigo", SetupScreen),
        ("#play-valdes", SetupScreen),
        ("#play-victim", SetupScreen),
        ("#new-campaign", ChooseGameScreen),
        ("#resume", CampaignsScreen),
        ("#rules", RulesScreen),
        ("#settings", SettingsScreen),
    ],
)
async def test_a_menu_button_opens_its_screen(button: str, shown: type) -> None:
    app = quiet_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click(button)
        await pilot.pause()
        assert isinstance(app.screen, shown)
        assert len(app.screen_stack) == 2, "one screen opened, once"
        if shown is SetupScreen:
            assert app.screen.game == button.removeprefix("#play-")
            assert not app.screen.campaign


async def test_the_quit_button_quits() -> None:
    app = quiet_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#quit")
        await pilot.pause()
        assert app.return_code == 0  # set by exit(); None while the app runs on


async def test_setup_start_and_back_buttons() -> None:
    app = quiet_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#play-valdes")
        await pilot.pause()
        await pilot.click("#back")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        await pilot.click("#play-valdes")
        await pilot.pause()
        await pilot.click("#start")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.screen.setup.game == "valdes"
