"""Nothing from a save file reaches the terminal raw: a campaign's name, its seats' names
and a file's own name are cleaned (cantina.text.clean_text, the one sanitiser) before
they are shown, by `cantina campaigns` and in the app's saves list."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from campaign_driver import drive, new_campaign
from test_no_color import picture
from textual.widgets import DataTable, Input, OptionList, Static

from cantina.app import CantinaApp
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, load
from cantina.games.valdes import ValDesSettings
from cantina.seating import seats_from_text
from screens.campaigns import CampaignsScreen
from screens.standings import StandingsScreen
from screens.table import TableScreen

HOSTILE = "\u001b]2;PWNED\u0007\u001b[2J"
WORKTREE = Path(__file__).resolve().parent.parent


def _hostile_folder(folder: Path) -> Path:
    """A whole save named HOSTILE (a seat too), and a damaged one whose file name and
    content hold terminal commands."""
    campaign = Campaign.new(
        "Robots", "valdes", seats_from_text("you,Expert"), ValDesSettings(seats=2), rounds=2, seed=3
    )
    path = Store(folder).create(campaign)
    doc = json.loads(path.read_bytes())
    doc["name"] = doc["listing"]["name"] = HOSTILE
    doc["roster"][1]["name"] = doc["listing"]["roster"][1]["name"] = "\x1b[31mRed\x9b2J"
    path.write_text(json.dumps(doc))
    assert load(path).data.name == HOSTILE, "a valid save: only its name is hostile"
    (folder / f"bad{HOSTILE}.json").write_text('{"format": 2, "name": "\\u001b[2J", "x": 1}')
    return path


def _raw(text: str) -> list[str]:
    return [ch for ch in text if (ord(ch) < 32 and ch != "\n") or 0x7F <= ord(ch) < 0xA0]


def test_cantina_campaigns_prints_no_terminal_command_from_a_file(tmp_path: Path) -> None:
    _hostile_folder(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "cantina", "campaigns", "--save-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(WORKTREE), "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stderr
    assert _raw(done.stdout) == [] and _raw(done.stderr) == []
    assert "]2;PWNED[2J" in done.stdout, "the name is shown, cleaned"
    assert "DAMAGED  bad]2;PWNED[2J.json" in done.stdout
    assert "[31mRed2J" in done.stdout


async def test_the_saves_list_and_the_table_show_no_terminal_command(tmp_path: Path) -> None:
    path = _hostile_folder(tmp_path)
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False, save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("u")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CampaignsScreen)
        listing = screen.query_one(OptionList)
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert len(shown) == 2
        assert all(_raw(text) == [] for text in shown), shown
        assert any("]2;PWNED[2J" in text for text in shown)
        screen.entries.sort(key=lambda e: e.path != path)  # the whole one first
        screen.reload(path)
        await pilot.press("enter")
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, TableScreen):
                break
        table = app.screen
        assert isinstance(table, TableScreen)
        panel = str(table.query_one("#campaign-panel", Static).render())
        assert "]2;PWNED[2J" in panel and _raw(panel) == []


MARKUP = "x [/] y [@click=app.quit]q[/]"
"""A name that is Textual markup, and bad markup at that: shown as typed, it must neither
end the app (MarkupError) nor become a link that runs an action."""


def _shown(app: CantinaApp) -> str:
    """The notes on screen, each as its toast says it (not as it wraps)."""
    return "\n".join(str(toast.render()) for toast in app.screen.query("Toast"))


async def test_a_name_or_file_that_looks_like_markup_is_shown_as_written(tmp_path: Path) -> None:
    """Every note the saves list and the standings show quotes a name, a file or what was
    typed as it is: importing a save called MARKUP says so, a damaged file called
    `[@click=app.quit]q.json` says why it cannot be opened, and a replay asked for as
    `[/]` is refused in words, all with the app still open."""
    campaign = new_campaign("valdes", 3, 2)
    campaign.data.name = MARKUP
    drive(campaign, 3, lambda *_: None)
    source = Store(tmp_path / "usb").create(campaign)
    folder = tmp_path / "saves"
    folder.mkdir()
    (folder / "[@click=app.quit]q.json").write_text('{"format": 2')
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False, save_dir=folder)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("u", "i")
        await pilot.pause()
        app.screen.query_one(Input).value = str(source)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CampaignsScreen)
        assert f"Imported {MARKUP!r}" in _shown(app)
        imported = app.screen.selected()
        app.clear_notifications()
        app.screen.reload(folder / "[@click=app.quit]q.json")
        await pilot.press("enter")
        await pilot.pause()
        assert "[@click=app.quit]q.json" in _shown(app)
        app.clear_notifications()
        assert imported is not None
        app.screen.reload(imported.path)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, StandingsScreen)
        await pilot.press("p")
        await pilot.pause()
        app.screen.query_one(Input).value = "[/]"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, StandingsScreen)
        assert "'[/]' is not a game number: give one from 1 to 1" in _shown(app)
    assert app.is_running is False


async def test_a_seat_named_like_markup_is_shown_as_written_in_the_standings(
    tmp_path: Path,
) -> None:
    """The standings' table reads a plain string cell as Rich markup: a seat called
    "[/]ann" ended the app (MarkupError) and "[b]Bo[/b]" lost its brackets. Each name
    is shown as it was given."""
    campaign = Campaign.new(
        "Robots",
        "valdes",
        seats_from_text("human:[/]ann,human:[b]Bo[/b]"),
        ValDesSettings(seats=2),
        rounds=2,
        seed=3,
    )
    path = Store(tmp_path).create(campaign)
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False, save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("u")
        await pilot.pause()
        app.screen.reload(path)
        await pilot.press("t")
        await pilot.pause()
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        grid = standings.query_one(DataTable)
        names = {str(grid.get_row_at(row)[0]) for row in range(grid.row_count)}
        assert names == {"[/]ann", "[b]Bo[/b]"}
        shown = "\n".join(picture(app).lines(grid.region))
        assert "[/]ann" in shown and "[b]Bo[/b]" in shown, shown


async def test_every_note_is_shown_as_written_from_the_app_or_a_screen(tmp_path: Path) -> None:
    """Notes quote what players and saves chose; one that looks like markup, sent by the
    app or by a screen (Textual's screens ask for markup by default), is shown as written
    and the app goes on."""
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False, save_dir=tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.notify(f"app: {MARKUP}")
        app.screen.notify(f"screen: {MARKUP}", title="[b]t[/b]")
        await pilot.pause()
        await pilot.pause(0.1)
        shown = _shown(app)
        assert f"app: {MARKUP}" in shown and f"screen: {MARKUP}" in shown
        assert app.is_running
