"""Every viewer of a table sees the same story: the table keeps its game's whole log, and a
screen that comes late (a resumed campaign here; spectators and players who rejoin over
SSH in test_ssh_tables.py) draws the same board and narration as one that was there
from the start. And the result dialog returns a choice; the table decides what follows."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget

from cantina.app import CantinaApp
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store
from cantina.games.valdes import ValDesSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import TableSetup, seats_from_text
from screens.dialogs import HistoryScreen
from screens.result import ResultScreen
from screens.table import TableScreen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("CANTINA_SAVE_DIR", raising=False)


def quiet(**options) -> CantinaApp:
    return CantinaApp(animation_speed=0, pace=0, save_preferences=False, **options)


def story(screen: TableScreen) -> tuple[str, list[str], dict[str, str]]:
    """What a person sees of a table: the status line, the narration, and every drawn
    part of the board (dice, seats, slate, pot, health) as text."""
    board: dict[str, str] = {}
    for widget in screen.query_one("#board").query(Widget):
        if widget.id and not widget.children:
            board[widget.id] = str(widget.render())
    status = str(screen.query_one("#status-bar").render())
    return status, list(screen.log_widget.lines), board


async def settle(pilot, app: CantinaApp, done, limit: int = 400) -> None:
    for _ in range(limit):
        await pilot.pause()
        if done():
            return
    raise AssertionError("the table never got there")


def asked(app: CantinaApp) -> bool:
    return isinstance(app.screen, TableScreen) and app.screen.awaiting_human


async def test_play_on_with_the_log_open_keeps_one_table():
    """The crash a new player hit: the log open as the game ends, `n` on the result, Esc
    out of the log, and on to two more games. One table screen all along, following the
    table's next games; no second table playing the AI seats."""
    setup = TableSetup(
        "valdes", ValDesSettings(seats=3, ante=1), seats_from_text("Expert,Bold,Cautious"), 3
    )
    # A little pace, so an AI-only game does not end before the keys below are read.
    app = CantinaApp(animation_speed=0, pace=0.02, save_preferences=False, start=setup)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        await pilot.press("l")  # the log, at once
        assert isinstance(app.screen, HistoryScreen)
        for game in (1, 2, 3):
            await settle(pilot, app, lambda: isinstance(app.screen, ResultScreen))
            assert table.table.number == game
            await pilot.press("n")
            await pilot.pause()
            if game == 1:
                assert isinstance(app.screen, HistoryScreen), "the log was left open"
                await pilot.press("escape")
                await pilot.pause()
            tables = [s for s in app.screen_stack if isinstance(s, TableScreen)]
            assert tables == [table] and app.screen is table
            assert table.table.number == game + 1 and table.number == game + 1
        assert app.return_code is None, "still running: nothing crashed"


def campaign_file(folder: Path, game: str, seats: str, settings, seed: int) -> Path:
    campaign = Campaign.new("Story", game, seats_from_text(seats), settings, rounds=3, seed=seed)
    return Store(folder).create(campaign)


def first_ask_mid_round(path: Path) -> bool:
    """Whether the person at this campaign's table is first asked in its first round,
    after the favor has been rolled (played out on a copy, with the AI's own choices)."""
    copy = Store(path.parent).open(path)
    try:
        table = copy.campaign.table()
        while table.game.pending is not None:
            if copy.campaign.seats[table.game.pending.seat].human:
                return table.game.state.favor is not None
            table.submit(table.game.pending.seat, table.ai_move())
        return False
    finally:
        copy.close()


async def test_a_resumed_vigo_campaign_shows_the_favor_and_the_story_so_far(tmp_path):
    """A Vigo's Favor campaign played until its person is asked mid-round, then quit and
    resumed: the resumed table shows the same favor die (not `?`), the same seats, pot
    and narration as the table that was played."""
    seed = 0
    while True:
        seed += 1
        folder = tmp_path / f"try-{seed}"
        path = campaign_file(
            folder, "vigo", "Expert,you,Bold,Cautious", VigoSettings(seats=4), seed
        )
        if first_ask_mid_round(path):
            break
    app = quiet(save_dir=folder, resume=path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: asked(app))
        played = story(app.screen)
    assert played[2]["favor"].strip("╭─╮│╰╯\n ") in ("R", "B")

    again = quiet(save_dir=folder, resume=path)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot, again, lambda: asked(again))
        resumed = story(again.screen)
    assert resumed == played


async def test_a_val_des_campaign_saved_mid_set_resumes_and_plays_on(tmp_path):
    """The other crash: a Val-Des campaign reopened in the middle of a set failed at its
    first call. Resumed, its slate shows every call of the sets before, the story is the
    same as before quitting, and play goes on to the end of the game."""
    folder = tmp_path / "saves"
    path = campaign_file(folder, "valdes", "Expert,you,Bold", ValDesSettings(seats=3), 5)
    app = quiet(save_dir=folder, resume=path)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):  # three sets called, and asked again mid-game
            await settle(pilot, app, lambda: asked(app))
            await pilot.press("1")
        await settle(pilot, app, lambda: asked(app))
        played = story(app.screen)
        assert len(app.screen.table.game.state.reveals) >= 3
    again = quiet(save_dir=folder, resume=path)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot, again, lambda: asked(again))
        assert story(again.screen) == played
        for _ in range(40):  # on to the result: every call after the resume is taken
            await settle(
                pilot, again, lambda: asked(again) or isinstance(again.screen, ResultScreen)
            )
            if isinstance(again.screen, ResultScreen):
                break
            await pilot.press("1")
        assert isinstance(again.screen, ResultScreen)
