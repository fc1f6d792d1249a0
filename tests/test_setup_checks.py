"""What a table's setup refuses before it sets a table or saves a campaign, and how."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from cantina.app import CantinaApp
from cantina.campaign.model import MAX_SEED
from cantina.campaign.store import load
from screens.setup import SetupScreen
from screens.table import TableScreen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


async def open_setup(pilot, *keys: str) -> SetupScreen:
    await pilot.press(*keys)
    for _ in range(20):
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, SetupScreen) and screen.ready:
            return screen
    raise AssertionError("the setup never came up")


def notes(app: CantinaApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


@pytest.mark.parametrize("keys", [("v",), ("c", "v")], ids=["table", "campaign"])
async def test_a_seed_the_command_line_would_refuse_is_refused_here_too(tmp_path, keys):
    """The result tells a table's seed as `cantina play ... --seed N` to deal the dice
    again, and that takes 0 to 2^63 - 1: a longer seed typed here set a table whose
    command was refused (a campaign said 'should be at most ... (at $.seed)'). The field
    takes no more digits than the largest seed has, and a seed above it is refused in
    words; the largest sets the table."""
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False, save_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, *keys)
        seed = setup.query_one("#seed", Input)
        seed.focus()
        await pilot.press(*"123456789012345678901234")
        assert seed.value == "1234567890123456789"  # 19 digits, as MAX_SEED has
        seed.value = str(MAX_SEED + 1)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is setup
        assert any(f"the seed must be a whole number from 0 to {MAX_SEED}" in n for n in notes(app))
        seed.value = str(MAX_SEED)
        await pilot.press("ctrl+s")
        for _ in range(20):
            await pilot.pause()
            if isinstance(app.screen, TableScreen):
                break
        assert isinstance(app.screen, TableScreen)
        if keys[0] == "c":  # a campaign's rounds have seeds of their own, made from it
            [path] = tmp_path.glob("*.json")
            assert load(path).data.seed == MAX_SEED
        else:
            assert app.screen.setup.seed == MAX_SEED
