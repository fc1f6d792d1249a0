"""Campaigns through the app (CA-1, CA-2): a new one from the menu, autosaved and locked
while played, resumed from the saves list, damaged saves listed and left alone, the
standings at the end and a round replayed from them."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, OptionList, Select, Static

from cantina.app import CantinaApp
from cantina.campaign.series import Campaign
from cantina.campaign.store import InUse, Store, load
from cantina.games.valdes import ValDesSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import seats_from_text
from screens.campaigns import CampaignsScreen
from screens.dialogs import AskScreen, ConfirmScreen
from screens.menu import MenuScreen
from screens.result import ResultScreen
from screens.setup import SetupScreen
from screens.standings import StandingsScreen
from screens.table import NarrationLog, TableScreen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("CANTINA_SAVE_DIR", raising=False)


def app_for(folder: Path, **options) -> CantinaApp:
    return CantinaApp(animation_speed=0, pace=0, save_preferences=False, save_dir=folder, **options)


def saved(folder: Path, name: str, game: str, seats: str, settings, rounds: int) -> Path:
    campaign = Campaign.new(name, game, seats_from_text(seats), settings, rounds=rounds, seed=11)
    return Store(folder).create(campaign)


def text_of(screen, selector: str) -> str:
    widget = screen.query_one(selector, Static)
    return str(widget.render())


async def keys(pilot, *pressed: str) -> None:
    """Press each key and let the app settle after it (screens come and go between)."""
    for key in pressed:
        await pilot.press(key)
        await pilot.pause()


async def leave(pilot, app: CantinaApp) -> None:
    """Esc until away from the table: a result closes first (showing the table); leaving
    a round under way asks, and says the campaign is saved; yes."""
    for _ in range(4):
        if not isinstance(app.screen, TableScreen | ResultScreen | ConfirmScreen):
            return
        if isinstance(app.screen, ConfirmScreen):
            assert "saved after every decision" in app.screen.question
            await pilot.press("y")
        else:
            await pilot.press("escape")
        await pilot.pause()
    raise AssertionError("still at the table")


async def decide(pilot, app: CantinaApp, count: int, *, then_wait: bool = False) -> None:
    """Make `count` human decisions (first option), letting the AI seats play between;
    with `then_wait`, stop only once the human is asked again (mid-round, for sure)."""
    made = 0
    for _ in range(400):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, TableScreen) and screen.awaiting_human:
            if made == count:
                return
            await pilot.press("1")
            made += 1
            if made == count and not then_wait:
                await pilot.pause()
                return
        elif isinstance(screen, ResultScreen):
            await pilot.press("n")
    raise AssertionError(f"only {made} decisions came up")


async def test_new_campaign_from_the_menu_is_saved_locked_and_autosaved(tmp_path):
    """CA-1: menu → game → campaign setup → the first table; the save appears at once,
    grows with every decision, is locked while played and released back at the menu."""
    folder = tmp_path / "saves"
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await pilot.press("v")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen) and setup.campaign
        setup.query_one("#campaign-name", Input).value = "Friday Club"
        setup.query_one("#seed", Input).value = "5"
        setup.query_one("#campaign-length", Select).value = 1
        await pilot.press("ctrl+s")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        panel = text_of(table, "#campaign-panel")
        assert "Friday Club" in panel and "round 1 of 4, lap 1 of 1" in panel
        path = folder / "friday-club.json"
        assert load(path).data.table is not None
        with pytest.raises(InUse, match="open in another cantina"):
            Store(folder).open(path)

        saves = app.campaign_session.saves
        await decide(pilot, app, 1)
        after = load(path)
        recorded = after.data.table.moves if after.data.table else after.data.finished[0].moves
        assert bytes(recorded) != b"[]", "the decision was saved"
        assert app.campaign_session.saves > saves

        await leave(pilot, app)
        assert isinstance(app.screen, MenuScreen)
        assert app.campaign_session is None
        Store(folder).open(path).close()  # the lock was given back


async def test_resume_from_the_list_continues_where_it_stopped(tmp_path):
    """CA-2 through the app: quit mid-round, start again, resume from the list: the same
    round and the same moves, then play goes on."""
    folder = tmp_path / "saves"
    path = saved(folder, "Long Night", "vigo", "you,Expert,Bold", VigoSettings(seats=3), 12)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "enter")
        await decide(pilot, app, 2, then_wait=True)
        moves = list(app.screen.table.moves)
        state = app.screen.game.to_json()
    assert moves, "decisions were made"
    record = load(path).data.table
    assert record is not None and json.loads(bytes(record.state)) == json.loads(state)

    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        await pilot.pause()
        listing = app.screen
        assert isinstance(listing, CampaignsScreen)
        assert "Long Night" in str(listing.query_one(OptionList).get_option_at_index(0).prompt)
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        assert table.table.moves == moves and table.game.to_json() == state
        played = load(path).played
        await decide(pilot, app, 1)
        after = load(path)
        assert after.played > played or len(bytes(after.data.table.moves)) > len(
            bytes(record.moves)
        ), "the decision after resuming was saved too"


async def test_resume_at_start_opens_the_table(tmp_path):
    """`cantina resume NAME` hands the app the save: it opens straight at the table."""
    folder = tmp_path / "saves"
    path = saved(folder, "Quick", "valdes", "you,Expert", ValDesSettings(seats=2), 2)
    app = app_for(folder, resume=path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert "Quick" in text_of(app.screen, "#campaign-panel")
        assert app.campaign_session is not None
    Store(folder).open(path).close()  # quitting the app gave the lock back


async def test_a_campaign_open_elsewhere_is_refused_with_a_message(tmp_path):
    folder = tmp_path / "saves"
    path = saved(folder, "Busy", "vigo", "you,Expert", VigoSettings(seats=2), 2)
    elsewhere = Store(folder).open(path)
    try:
        app = app_for(folder)
        async with app.run_test(size=SIZE) as pilot:
            await keys(pilot, "u", "enter")
            assert isinstance(app.screen, CampaignsScreen)
            shown = [n.message for n in app._notifications]
            assert any("open in another cantina" in m for m in shown), shown
    finally:
        elsewhere.close()


async def test_damaged_saves_are_listed_and_left_untouched(tmp_path):
    """A damaged save is listed with its file and reason; trying to resume or rename it
    says why and never writes to it; the good save beside it still opens."""
    folder = tmp_path / "saves"
    saved(folder, "Good One", "vigo", "you,Expert", VigoSettings(seats=2), 2)
    bad = folder / "broken.json"
    bad.write_bytes(b'{"format": 2, "name": "x", "banks": "lots"')
    old = os.stat(bad).st_mtime - 3600
    os.utime(bad, (old, old))  # listed after the good one
    digest = hashlib.sha256(bad.read_bytes()).hexdigest()
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        await pilot.pause()
        listing = app.screen
        prompts = [str(o.prompt) for o in listing.query_one(OptionList).options]
        assert "Good One" in prompts[0]
        assert "DAMAGED" in prompts[1] and "broken.json" in prompts[1]
        await pilot.press("down", "enter", "n", "x")
        await pilot.pause()
        assert isinstance(app.screen, CampaignsScreen)
        shown = [n.message for n in app._notifications]
        assert any("broken.json" in m for m in shown), shown
    assert hashlib.sha256(bad.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in folder.glob("*.json")) == ["broken.json", "good-one.json"]


async def test_rename_delete_with_confirmation_and_export(tmp_path):
    folder = tmp_path / "saves"
    path = saved(folder, "Old Name", "vigo", "you,Expert", VigoSettings(seats=2), 2)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "n")
        assert isinstance(app.screen, AskScreen)
        app.screen.query_one(Input).value = "New Name"
        await pilot.press("enter")
        await pilot.pause()
        assert load(path).name == "New Name" and path.exists()

        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one(Input).value = str(tmp_path / "copy.json")
        await pilot.press("enter")
        await pilot.pause()
        assert (tmp_path / "copy.json").read_bytes() == path.read_bytes()

        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # no: nothing happens
        await pilot.pause()
        assert path.exists()
        await keys(pilot, "x", "y")
        assert not path.exists()
        assert "none yet" in text_of(app.screen, "#campaigns-title")


async def test_autosave_failure_is_reported_and_play_goes_on(tmp_path, monkeypatch):
    folder = tmp_path / "saves"
    saved(folder, "Full Disk", "vigo", "you,Expert,Bold", VigoSettings(seats=3), 3)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "enter")

        def full(*_args, **_kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr("cantina.campaign.store.write_atomic", full)
        await decide(pilot, app, 1)
        shown = [n.title for n in app._notifications]
        assert "Autosave failed" in shown
        assert isinstance(app.screen, (TableScreen, ResultScreen))


async def test_campaign_ends_with_standings_and_a_round_replays(tmp_path):
    """CA-1: the last round's result leads to the final standings (banks, rounds won,
    streaks, luck); Replay plays the round again, event by event, from its seed and
    moves: the same narration as when it was played."""
    folder = tmp_path / "saves"
    path = saved(folder, "Robots", "valdes", "Expert,Bold", ValDesSettings(seats=2), 1)
    app = app_for(folder, resume=path)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause()
            if isinstance(app.screen, ResultScreen):
                break
        played_lines = list(app.screen_stack[-2].query_one(NarrationLog).lines)
        assert "Final standings" in str(app.screen.query_one("#again").label)
        await pilot.press("n")
        await pilot.pause()
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        grid = standings.query_one(DataTable)
        assert grid.row_count == 2
        labels = [str(c.label) for c in grid.ordered_columns]
        assert labels == ["Seat", "Bank", "Games won", "Best streak", "Luck"]
        won = sorted(int(grid.get_row_at(r)[2]) for r in range(2))
        assert won == [0, 1]

        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, AskScreen)
        await pilot.press("enter")
        for _ in range(300):
            await pilot.pause()
            replay = app.screen
            if isinstance(replay, TableScreen) and replay.game.pending is None:
                break
        assert isinstance(replay, TableScreen) and "Replay of game 1" in str(
            replay.query_one("#status-bar").render()
        )
        assert replay.query_one(NarrationLog).lines == played_lines
        assert not isinstance(app.screen, ResultScreen), "a replay offers no play-on"
    assert load(path).over


def test_snapshot_campaign_setup(snap_compare, tmp_path):
    def to_setup(pilot):
        return pilot.press("c", "v")

    assert snap_compare(app_for(tmp_path), terminal_size=SIZE, run_before=to_setup)


def test_snapshot_standings(snap_compare, tmp_path):
    path = saved(tmp_path, "Robots", "vigo", "Expert,Bold,Cautious", VigoSettings(seats=3), 3)
    session = Store(tmp_path).open(path)
    with session:
        campaign = session.campaign
        table = campaign.table()
        while not campaign.over:
            while table.game.pending is not None:
                table.submit(table.game.pending.seat, table.ai_move())
            if campaign.played < campaign.data.rounds:
                table.next_game()
    app = app_for(tmp_path, resume=path)
    assert snap_compare(app, terminal_size=SIZE)


async def test_without_campaigns_the_menu_offers_none(tmp_path):
    """An SSH guest keeps no campaigns: the menu's campaign keys and buttons do nothing."""
    app = app_for(tmp_path)
    app.campaigns_allowed = False
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c", "u")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        assert app.screen.query_one("#new-campaign").disabled
        assert app.screen.query_one("#resume").disabled


async def test_back_at_the_saves_list_the_campaign_is_let_go(tmp_path):
    """Resume from the list, then Esc back to it: the campaign's lock is given back, so it
    can be renamed there at once."""
    folder = tmp_path / "saves"
    path = saved(folder, "Lunch", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "enter")
        assert isinstance(app.screen, TableScreen) and app.campaign_session is not None
        await keys(pilot, "escape", "y")  # yes, leave the round under way (it is saved)
        assert isinstance(app.screen, CampaignsScreen)
        assert app.campaign_session is None
        Store(folder).open(path).close()
