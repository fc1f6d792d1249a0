"""Campaigns through the app (CA-1, CA-2): a new one from the menu, autosaved and locked
while played, resumed from the saves list, damaged saves listed and left alone, the
standings at the end and a round replayed from them."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from pathlib import Path

import msgspec
import pytest
from test_no_color import picture
from textual.geometry import Region
from textual.widgets import Checkbox, DataTable, Input, OptionList, Select, Static

from cantina.analysis_report import SkillAndLuck
from cantina.app import CantinaApp
from cantina.campaign import store as store_module
from cantina.campaign.series import Campaign
from cantina.campaign.store import InUse, Store, load
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import seats_from_text
from screens import standings as standings_module
from screens.campaigns import CampaignsScreen
from screens.dialogs import AskScreen, ConfirmScreen, UnsavedScreen
from screens.menu import MenuScreen
from screens.result import ResultScreen
from screens.setup import SetupScreen
from screens.standings import StandingsScreen
from screens.table import NarrationLog, TableScreen
from screens.textual_compat import FooterKey

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
        assert load(path).decisions >= 1, "the decision was saved"
        assert app.campaign_session.saves > saves

        await leave(pilot, app)
        assert isinstance(app.screen, MenuScreen)
        assert app.campaign_session is None
        Store(folder).open(path).close()  # the lock was given back


@pytest.mark.parametrize(("key", "game"), [("v", "vigo"), ("d", "valdes")])
async def test_a_new_campaigns_banks_start_at_the_starting_bank_chosen(tmp_path, key, game):
    """CA-1: the starting bank is a setting of the setup; the campaign's banks start there."""
    folder = tmp_path / "saves"
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "c", key)
        setup = app.screen
        assert isinstance(setup, SetupScreen) and setup.campaign
        setup.query_one("#campaign-name", Input).value = "Deep Pockets"
        setup.query_one("#seat-count", Select).value = 3
        setup.query_one("#starting-bank", Select).value = 45
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
    saved_file = load(folder / "deep-pockets.json").data
    assert saved_file.game == game and saved_file.banks == [45, 45, 45]
    assert msgspec.json.decode(saved_file.settings)["starting_bank"] == 45


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


def good_and_broken(folder: Path) -> Path:
    """A good save, "Good One", and a damaged one listed after it: the damaged one's path."""
    saved(folder, "Good One", "vigo", "you,Expert", VigoSettings(seats=2), 2)
    bad = folder / "broken.json"
    bad.write_bytes(b'{"format": 2, "name": "x", "banks": "lots"')
    old = os.stat(bad).st_mtime - 3600
    os.utime(bad, (old, old))  # listed after the good one
    return bad


async def test_damaged_saves_are_listed_and_left_untouched(tmp_path):
    """A damaged save is listed with its file and reason; trying to resume or rename it
    says why and never writes to it; the good save beside it still opens."""
    folder = tmp_path / "saves"
    bad = good_and_broken(folder)
    digest = hashlib.sha256(bad.read_bytes()).hexdigest()
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        await pilot.pause()
        listing = app.screen
        prompts = [str(o.prompt) for o in listing.query_one(OptionList).options]
        assert "Good One" in prompts[0]
        assert "DAMAGED" in prompts[1] and "broken.json" in prompts[1]
        await pilot.press("down", "enter", "n")
        await pilot.pause()
        assert isinstance(app.screen, CampaignsScreen)
        shown = [n.message for n in app._notifications]
        assert any("broken.json" in m for m in shown), shown
        await keys(pilot, "x")  # deleting asks first, naming it damaged; no keeps it
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one(Static).render())
        assert question.startswith("Delete the damaged save broken.json? It can never be played")
        await keys(pilot, "n")
    assert hashlib.sha256(bad.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in folder.glob("*.json")) == ["broken.json", "good-one.json"]


async def test_a_damaged_save_can_be_deleted_once_its_player_is_sure(tmp_path):
    """It can never be played, so its player may want it gone: `x`, then yes, deletes it
    (and nothing else)."""
    folder = tmp_path / "saves"
    good_and_broken(folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "down", "x", "y")
        assert isinstance(app.screen, CampaignsScreen)
        assert len(app.screen.entries) == 1
    assert sorted(p.name for p in folder.glob("*.json")) == ["good-one.json"]


async def test_a_damaged_save_is_listed_with_its_campaigns_name_when_it_can_be_read(tmp_path):
    """A save from a newer cantina still says which campaign it is: the list names it
    beside its file ("DAMAGED  Friday Club (friday.json)"), as `cantina resume` finds it
    by that name; a save too garbled to name is listed by its file alone."""
    folder = tmp_path / "saves"
    folder.mkdir()
    (folder / "friday.json").write_text('{"format": 99, "name": "Friday Club", "banks": 1}')
    (folder / "garbled.json").write_text('{"format": 2, "na')
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u")
        prompts = sorted(str(o.prompt) for o in app.screen.query_one(OptionList).options)
        assert prompts[0].startswith("DAMAGED  Friday Club (friday.json)  "), prompts
        assert prompts[1].startswith("DAMAGED  garbled.json  "), prompts


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
        assert labels == ["Seat", "Bank", "Games won", "Best streak", "Skill", "Luck"]
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


async def test_the_replay_offered_between_rounds_is_one_played(tmp_path):
    """Between two rounds the next is dealt but nothing has been played in it: the
    standings offer the rounds played, their last as the answer, and Enter replays it
    (it offered the dealt round, which has nothing to replay, and refused it)."""
    folder = tmp_path / "saves"
    path = saved(folder, "Robots", "valdes", "Expert,Bold", ValDesSettings(seats=2), 3)
    with Store(folder).open(path) as session:
        campaign = session.campaign
        table = campaign.table()
        while table.game.pending is not None:
            table.submit(table.game.pending.seat, table.ai_move())
    assert load(path).played == 1 and load(path).data.table is not None
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "t", "p")
        ask = app.screen
        assert isinstance(ask, AskScreen)
        assert ask.question == "Replay which game? (1 to 1)"
        assert ask.query_one(Input).value == "1"
        await keys(pilot, "enter")
        assert isinstance(app.screen, TableScreen), notes(app)
        assert "Replay of game 1" in str(app.screen.query_one("#status-bar").render())


async def test_a_victim_replays_status_line_fits_80_columns_whole(tmp_path):
    """The status bar of a replay of a Victim! match at 80 columns: "Replay of match 1 ·
    Victim! · turn 1 · ..." lost its last words ("in secret") off the edge. It is drawn
    whole now, every word of it on the screen."""
    folder = tmp_path / "saves"
    seats = seats_from_text("Expert,Bold,Loyal")
    campaign = Campaign.new("Duel", "victim", seats, VictimSettings(), rounds=2, seed=11)
    path = Store(folder).create(campaign)
    with Store(folder).open(path) as session:
        table = session.campaign.table()
        while table.game.pending is not None:
            table.submit(table.game.pending.seat, table.ai_move())
    # at a pace a person can watch, so the replay is seen under way, not only at its end
    app = CantinaApp(animation_speed=0, pace=1, save_preferences=False, save_dir=folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "t", "p", "enter")
        replay = app.screen
        assert isinstance(replay, TableScreen), notes(app)
        status = str(replay.query_one("#status-bar").render()).strip()
        assert status.startswith("Replay of match 1 · Victim! · turn")
        assert status.endswith("in secret"), status
        drawn = "".join(picture(app).text[0]).strip()
        assert drawn == status


async def test_with_a_house_vigo_the_campaigns_length_is_labelled_rounds(tmp_path):
    """VF-13: a House Vigo keeps the title, so a campaign's length counts rounds, not
    laps; the setup's label says so as the variant is ticked (it said Laps: 3 laps of 4
    seats, 12 rounds expected, made 3)."""
    folder = tmp_path / "saves"
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "c", "v")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        word = setup.query_one("#length-word", Static)
        assert str(word.render()).strip() == "Laps"
        setup.query_one("#house-vigo", Checkbox).value = True
        await pilot.pause()
        assert str(word.render()).strip() == "Rounds"
        setup.query_one("#house-vigo", Checkbox).value = False
        await pilot.pause()
        assert str(word.render()).strip() == "Laps"
        setup.query_one("#house-vigo", Checkbox).value = True
        setup.query_one("#campaign-length", Select).value = 3
        await pilot.pause()
        await keys(pilot, "ctrl+s")
        assert isinstance(app.screen, TableScreen)
    [path] = folder.glob("*.json")
    assert load(path).data.rounds == 3


async def test_the_arrow_keys_move_through_the_games_of_a_new_campaign(tmp_path):
    """As on the menu, the arrow keys move through "which game?" and Enter picks the one
    reached (they did nothing there: Enter always took the first, Vigo's Favor)."""
    app = app_for(tmp_path / "saves")
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "c", "down", "down", "up", "enter")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen) and setup.campaign and setup.game == "valdes"


async def test_a_new_campaign_opens_on_its_name_so_a_player_types_it_at_once(tmp_path):
    """The campaign setup opens with its name field focused, the default all selected:
    what the player types first is the name (it opened on Start, and the letters typed
    went nowhere). Enter is not needed: ctrl+s starts the campaign under that name."""
    folder = tmp_path / "saves"
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "c", "v")
        setup = app.screen
        assert isinstance(setup, SetupScreen) and setup.campaign
        name = setup.query_one("#campaign-name", Input)
        assert setup.focused is name
        await pilot.press(*"Zed")
        await pilot.pause()
        assert name.value == "Zed"
        setup.query_one("#campaign-length", Select).value = 1
        await keys(pilot, "ctrl+s")
        assert isinstance(app.screen, TableScreen)
    assert (folder / "zed.json").exists()


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

    async def worked_out(pilot):  # skill and luck are filled in from a thread
        for _ in range(600):
            await pilot.pause()
            screen = pilot.app.screen
            if isinstance(screen, StandingsScreen) and screen.skill_and_luck is not None:
                return
        raise AssertionError("skill and luck never came")

    assert snap_compare(app, terminal_size=SIZE, run_before=worked_out)


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


# --- the saves list: its footer, names, import ------------------------------------------


def notes(app: CantinaApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def folder_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def footer_keys(screen) -> list[tuple[str, Region]]:
    return [(key.description, key.region) for key in screen.query(FooterKey)]


async def test_the_saves_list_footer_fits_80_columns(tmp_path):
    """At 80 x 24 every key in the saves list's footer is drawn whole, on screen, and
    none under another (the command palette's key is docked on the right)."""
    folder = tmp_path / "saves"
    saved(folder, "Lunch", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u")
        assert isinstance(app.screen, CampaignsScreen)
        shown = footer_keys(app.screen)
        described = {description for description, _ in shown}
        for action in ("Rename", "Delete", "Export", "Import", "Standings", "Back"):
            assert action in described, described
        row = "".join(picture(app).text[SIZE[1] - 1])
        for key in ("n Rename ", "x Delete ", "e Export ", "i Import ", "t Standings "):
            assert key in row, row  # each key apart from the next, colour or none
        for description, region in shown:
            assert region.x >= 0 and region.right <= SIZE[0], (description, region)
            assert region.width >= len(description), (description, region)
        for (one, a), (other, b) in itertools.combinations(shown, 2):
            assert not a.overlaps(b), f"{one} {a} lies under {other} {b}"
        assert "Enter or r resumes" in text_of(app.screen, "#campaigns-title")


async def test_import_from_the_saves_list(tmp_path):
    """`i` asks for a file; its save is checked, copied in under a name and a file name
    of its own, listed and highlighted; the file it came from is left as it was."""
    folder = tmp_path / "saves"
    saved(folder, "Friday Club", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    source = saved(
        tmp_path / "usb", "Friday Club", "valdes", "you,Bold", ValDesSettings(seats=2), 3
    )
    before = source.read_bytes(), source.stat().st_mtime_ns
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "i")
        ask = app.screen
        assert isinstance(ask, AskScreen) and "Import" in text_of(ask, "Static")
        ask.query_one(Input).value = str(source)
        await keys(pilot, "enter")
        listing = app.screen
        assert isinstance(listing, CampaignsScreen)
        assert listing.selected().path == folder / "friday-club-2.json"
        assert listing.selected().campaign.name == "Friday Club 2"
        assert "Imported 'Friday Club' as 'Friday Club 2' (friday-club-2.json)" in " ".join(
            notes(app)
        )
        assert len(listing.entries) == 2
    assert (source.read_bytes(), source.stat().st_mtime_ns) == before
    assert load(folder / "friday-club-2.json").game == "valdes"


async def test_a_damaged_import_is_refused_and_the_folder_left_alone(tmp_path):
    folder = tmp_path / "saves"
    saved(folder, "Kept", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"format": 2, "name": "x", "banks": "lots"}')
    before = folder_files(folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "i")
        app.screen.query_one(Input).value = str(bad)
        await keys(pilot, "enter")
        assert isinstance(app.screen, CampaignsScreen)
        shown = " ".join(notes(app))
        assert "Not done: bad.json: $.banks" in shown and "Expected `" not in shown
        app.screen.query_one(OptionList)  # the list is still there, with the one save
        assert len(app.screen.entries) == 1
    assert folder_files(folder) == before
    assert bad.read_bytes() == b'{"format": 2, "name": "x", "banks": "lots"}'


@pytest.mark.parametrize("key", ["e", "i"], ids=["export", "import"])
@pytest.mark.parametrize("typed", ["~nobody-here-at-all/x.json", "/tmp/a\0b.json"])
async def test_a_path_that_leads_nowhere_is_refused_in_words(tmp_path, key, typed):
    """Export and import take a typed path: one starting at the home of a user there is
    not (Path raised RuntimeError), or holding a NUL (ValueError), ended the app; each is
    refused with a sentence now, and the folder is left as it was."""
    folder = tmp_path / "saves"
    saved(folder, "Kept", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    before = folder_files(folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", key)
        app.screen.query_one(Input).value = typed
        await keys(pilot, "enter")
        assert isinstance(app.screen, CampaignsScreen)
        said = " ".join(notes(app))
        assert "Not done: " in said and (
            "there is no user 'nobody-here-at-all' here" in said or "NUL" in said
        ), said
    assert folder_files(folder) == before


async def test_a_save_deleted_elsewhere_leaves_the_list_when_it_cannot_be_opened(tmp_path):
    """Another cantina (or the player's shell) deletes a save while this list shows it:
    Enter says it cannot be read, and the list is read again, without it (it stayed
    listed, and every Enter said the same)."""
    folder = tmp_path / "saves"
    saved(folder, "Kept", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    gone = saved(folder, "Gone", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    os.utime(gone, (2_000_000_000, 2_000_000_000))  # listed first, highlighted
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u")
        listing = app.screen
        assert isinstance(listing, CampaignsScreen) and listing.selected().path == gone
        gone.unlink()
        await keys(pilot, "enter")
        assert app.screen is listing
        assert any("gone.json: cannot be read" in n for n in notes(app)), notes(app)
        assert [e.path.name for e in listing.entries] == ["kept.json"]


async def test_import_and_export_are_not_offered_over_ssh(tmp_path):
    """A player over SSH types no paths on the host: neither key is shown or acts."""
    folder = tmp_path / "saves"
    saved(folder, "Remote", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    app = app_for(folder)
    app.files_on_host = False
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u")
        described = {description for description, _ in footer_keys(app.screen)}
        assert "Import" not in described and "Export" not in described
        await keys(pilot, "i")
        assert isinstance(app.screen, CampaignsScreen)
        app.screen.action_import()  # even asked for directly
        await pilot.pause()
        assert isinstance(app.screen, CampaignsScreen)
        assert "or import a save" not in text_of(app.screen, "#campaigns-title")


async def test_renaming_to_a_name_taken_is_refused(tmp_path):
    folder = tmp_path / "saves"
    saved(folder, "Friday Club", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    other = saved(folder, "Saturday", "vigo", "you,Expert", VigoSettings(seats=2), 4)
    os.utime(other, (2_000_000_000, 2_000_000_000))  # listed first
    before = folder_files(folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "n")
        app.screen.query_one(Input).value = "FRIDAY club"
        await keys(pilot, "enter")
        assert isinstance(app.screen, CampaignsScreen)
        assert any(
            "another campaign is called 'FRIDAY club' (friday-club.json)" in n for n in notes(app)
        )
    assert folder_files(folder) == before


async def test_a_second_campaign_from_the_menu_is_numbered(tmp_path):
    """The setup offers "Campaign" as the name every time: the second is "Campaign 2",
    in a file of its own."""
    folder = tmp_path / "saves"
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        for expected in ("Campaign", "Campaign 2"):
            await keys(pilot, "c", "d", "ctrl+s")
            assert isinstance(app.screen, TableScreen)
            assert text_of(app.screen, "#campaign-panel").startswith(expected + "\n")
            await leave(pilot, app)
            assert isinstance(app.screen, MenuScreen)
    assert sorted(p.name for p in folder.glob("*.json")) == ["campaign-2.json", "campaign.json"]
    assert load(folder / "campaign-2.json").name == "Campaign 2"


@pytest.fixture
def utc(monkeypatch):
    """Times shown in local time, drawn the same on every machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_snapshot_saves_list_after_an_import(snap_compare, tmp_path, monkeypatch, utc):
    """The saves list at 80 x 24 once a save from elsewhere is imported beside one of the
    same name: numbered, highlighted, said so; every footer key on show."""
    monkeypatch.chdir(tmp_path)  # the title names the folder: the same on every run
    folder = Path("saves")
    saved(folder, "Friday Club", "vigo", "you,Expert,Bold", VigoSettings(seats=3), 6)
    saved(folder, "Robots", "valdes", "Expert,Bold", ValDesSettings(seats=2), 3)
    source = saved(Path("usb"), "Friday Club", "victim", "you,Loyal,Bold", VictimSettings(), 3)

    async def run_before(pilot):
        await keys(pilot, "u", "i")
        pilot.app.screen.query_one(Input).value = str(source)
        await keys(pilot, "enter")
        for path in folder.iterdir():  # a fixed time for every save, shown in the list
            os.utime(path, (1_767_225_600, 1_767_225_600))
        pilot.app.screen.reload()
        await pilot.pause()

    assert snap_compare(app_for(folder), terminal_size=SIZE, run_before=run_before)


class Disk:
    """The save folder's disk, full or not: every file written there while full fails
    (elsewhere, another disk, is fine)."""

    def __init__(self, monkeypatch, folder: Path) -> None:
        self.full = False
        real = store_module.write_atomic

        def write(path: Path, *args, **kwargs):
            if self.full and path.parent == folder:
                raise OSError(28, "No space left on device")
            return real(path, *args, **kwargs)

        monkeypatch.setattr("cantina.campaign.store.write_atomic", write)


def decisions_in(path: Path) -> int:
    campaign = load(path)
    return campaign.decisions


async def test_leaving_tries_a_failed_autosave_again_and_loses_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "saves"
    path = saved(folder, "Full Disk", "vigo", "you,Expert,Bold", VigoSettings(seats=3), 12)
    disk = Disk(monkeypatch, folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "enter")
        disk.full = True
        await decide(pilot, app, 2, then_wait=True)
        made = app.campaign_session.campaign.decisions
        assert made >= 2 and decisions_in(path) < made
        disk.full = False  # room again: leaving saves it all, and asks nothing new
        await leave(pilot, app)
        assert not isinstance(app.screen, UnsavedScreen)
        assert decisions_in(path) == made


async def test_leaving_when_the_save_still_fails_says_what_is_lost(tmp_path, monkeypatch):
    """Stay, export elsewhere (with every decision), or leave anyway: never a silent loss."""
    folder = tmp_path / "saves"
    path = saved(folder, "Full Disk", "vigo", "you,Expert,Bold", VigoSettings(seats=3), 12)
    disk = Disk(monkeypatch, folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "enter")
        before = decisions_in(path)
        disk.full = True
        await decide(pilot, app, 2, then_wait=True)
        lost = app.campaign_session.campaign.decisions - before
        assert lost >= 2
        await keys(pilot, "escape")
        dialog = app.screen
        assert isinstance(dialog, UnsavedScreen)
        assert dialog.message == (
            "The campaign 'Full Disk' could not be saved: the disk is full. "
            f"Leaving now loses the last {lost} decisions since its last save."
        )
        await keys(pilot, "s")
        assert isinstance(app.screen, TableScreen), "stay: back at the table"

        await keys(pilot, "ctrl+q")  # quitting asks the same
        assert isinstance(app.screen, UnsavedScreen)
        await keys(pilot, "s")
        assert isinstance(app.screen, TableScreen)

        await keys(pilot, "escape", "e")
        assert isinstance(app.screen, AskScreen)
        rescue = tmp_path / "rescue.json"
        app.screen.query_one(Input).value = str(rescue)
        await keys(pilot, "enter")
        assert not isinstance(app.screen, TableScreen | UnsavedScreen | AskScreen)
        assert decisions_in(rescue) == before + lost
        assert decisions_in(path) == before, "the save itself was never written"
        assert [p for p in folder.iterdir() if p.suffix == ".tmp"] == []


async def test_leaving_anyway_loses_only_what_was_said(tmp_path, monkeypatch):
    folder = tmp_path / "saves"
    path = saved(folder, "Full Disk", "valdes", "you,Expert", ValDesSettings(seats=2), 3)
    disk = Disk(monkeypatch, folder)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        await keys(pilot, "u", "enter")
        await decide(pilot, app, 1, then_wait=True)
        kept = decisions_in(path)
        disk.full = True
        await decide(pilot, app, 1, then_wait=True)
        await keys(pilot, "escape")
        assert isinstance(app.screen, UnsavedScreen)
        await keys(pilot, "l")
        assert not isinstance(app.screen, TableScreen | UnsavedScreen)
        assert app.campaign_session is None
    assert decisions_in(path) == kept


async def test_the_results_footer_says_what_n_does_as_its_button_does(tmp_path):
    """The result's footer named `n` "Play on" whatever it did: on a campaign's last
    round its button says "Final standings", and that is where `n` goes; before it, the
    game's own words ("New game" at Val-Des). Footer and button now say the same."""
    folder = tmp_path / "saves"
    path = saved(folder, "Robots", "valdes", "Expert,Bold", ValDesSettings(seats=2), 2)
    app = app_for(folder, resume=path)
    async with app.run_test(size=SIZE) as pilot:
        for last in (False, True):
            for _ in range(300):
                await pilot.pause()
                if isinstance(app.screen, ResultScreen):
                    break
            result = app.screen
            assert isinstance(result, ResultScreen)
            words = "Final standings" if last else "New game"
            assert str(result.query_one("#again").label) == f"{words}  [n]"
            shown = [description for description, _ in footer_keys(result)]
            assert shown[0] == words and "Play on" not in shown, shown
            await pilot.press("n")
            await pilot.pause()
        assert isinstance(app.screen, StandingsScreen)


@pytest.mark.parametrize(("game", "unit"), [("victim", "match"), ("valdes", "game")])
async def test_the_standings_replay_key_says_the_games_word_and_is_dim_with_none(
    tmp_path, game, unit
):
    """The standings offered "Replay a round" at Victim! and Val-Des, where the prompt it
    opens asks "Replay which match?" (or game); and its footer key looked ready while its
    button was off, with no round played yet, and did nothing. Both now say the game's
    word, and the key is dimmed while there is nothing to replay."""
    folder = tmp_path / "saves"
    seats = "Expert,Bold,Loyal" if game == "victim" else "Expert,Bold"
    settings = VictimSettings() if game == "victim" else ValDesSettings(seats=2)
    path = saved(folder, "Robots", game, seats, settings, 2)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        for played in (False, True):
            with Store(folder).open(path) as session:
                if played:
                    table = session.campaign.table()
                    table.submit(table.game.pending.seat, table.ai_move())
                campaign = session.campaign
            app.push_screen(StandingsScreen(campaign))
            await pilot.pause()
            standings = app.screen
            assert str(standings.query_one("#replay").label) == f"Replay a {unit}  [p]"
            keys = {key.description: key for key in standings.query(FooterKey)}
            assert "Replay a round" not in keys
            assert keys[f"Replay a {unit}"].has_class("-disabled") is not played
            await pilot.press("p")
            await pilot.pause()
            assert isinstance(app.screen, AskScreen) is played
            if played:
                assert f"Replay which {unit}?" in str(app.screen.query_one("Static").render())
                await pilot.press("escape")
            await pilot.press("escape")
            await pilot.pause()


async def test_a_victim_campaigns_result_says_who_took_the_match_stake(tmp_path):
    """A match of a Victim! campaign ended on health alone: nothing said that the winner
    took the match stake every seat paid, nor what the banks now were, though the results
    of Vigo's Favor and Val-Des show each bank. Now each row has its bank and its change."""
    folder = tmp_path / "saves"
    seats = seats_from_text("Expert,Bold,Loyal")
    campaign = Campaign.new(
        "Duel", "victim", seats, VictimSettings(), rounds=2, seed=11, match_stake=5
    )
    path = Store(folder).create(campaign)
    app = app_for(folder, resume=path)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(600):
            await pilot.pause()
            if isinstance(app.screen, ResultScreen):
                break
        result = app.screen
        assert isinstance(result, ResultScreen)
        rows = str(result.query_one("#standings", Static).render()).splitlines()
        winner = result.table.game.state.result.winner
        banks = load(path).data.banks
        assert sorted(banks) == [15, 15, 30]
        for seat, row in enumerate(rows):
            change = "+10" if seat == winner else "-5"
            assert row.endswith(f"bank {banks[seat]:>4}  ({change})"), row


async def test_the_standings_never_show_a_skill_of_minus_zero(tmp_path, monkeypatch):
    """A Victim! campaign's standings showed the Expert's skill as "-0.00": a rounding
    error below zero, read as a mistake the Expert cannot make. It shows +0.00."""

    def figures(campaign):
        return [SkillAndLuck(-1e-12, 0.5), SkillAndLuck(-0.25, -1e-13)]

    monkeypatch.setattr(standings_module, "campaign_skill_and_luck", figures)
    folder = tmp_path / "saves"
    path = saved(folder, "Robots", "valdes", "Expert,Bold", ValDesSettings(seats=2), 2)
    app = app_for(folder)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(StandingsScreen(load(path)))
        for _ in range(50):
            await pilot.pause()
            if app.screen.skill_and_luck is not None:
                break
        grid = app.screen.query_one(DataTable)
        cells = {(grid.get_row_at(r)[0].plain, grid.get_row_at(r)[-2]) for r in range(2)}
        assert cells == {("Expert", "+0.00"), ("Bold", "-0.25")}, cells
        lucks = sorted(grid.get_row_at(r)[-1] for r in range(2))
        assert lucks == ["+0.00", "+0.50"], lucks
