"""The cantina app driven through Textual's Pilot: whole games, hot-seat secrecy, the
too-small notice, remembered themes, the odds readout, and SVG snapshots at 80x24."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from textual.widgets import Static

from cantina.app import CantinaApp
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import TableSetup, seats_from_text
from screens.dialogs import HandOffScreen
from screens.menu import MenuScreen
from screens.options import OptionGrid
from screens.result import ResultScreen
from screens.setup import SetupScreen
from screens.table import TableScreen
from screens.table_widgets import DecisionBar
from screens.textual_compat import FooterKey
from screens.too_small import TooSmallScreen

SIZE = (80, 24)
TABLES = {
    "vigo": (VigoSettings(seats=4), "you,Expert,Bold,Cautious"),
    "valdes": (ValDesSettings(seats=3, ante=1), "you,Expert,Superstitious"),
    "victim": (VictimSettings(), "you,Expert,Treacherous"),
}


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    """Each test gets its own preferences folder."""
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


def quiet_app(game: str, seed: int = 7, seats: str | None = None) -> CantinaApp:
    settings, default = TABLES[game]
    setup = TableSetup(game, settings, seats_from_text(seats or default), seed)
    return CantinaApp(start=setup, animation_speed=0, pace=0, save_preferences=False)


async def play_to_the_end(pilot, app: CantinaApp, limit: int = 400) -> int:
    """Answer every human decision with its first option until the result screen."""
    for presses in range(limit):
        await pilot.pause()
        if isinstance(app.screen, ResultScreen):
            return presses
        if isinstance(app.screen, TableScreen) and app.screen.awaiting_human:
            await pilot.press("1")
    raise AssertionError("the game did not reach its result screen")


@pytest.mark.parametrize("game", list(TABLES))
async def test_a_whole_game_through_the_ui(game):
    """One full game of each game with a human seat against AI seats, fixed seed: the
    human is asked by name, the log narrates, and the result names the winner."""
    app = quiet_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        presses = await play_to_the_end(pilot, app)
        assert table.game.pending is None and table.game.result is not None
        log_lines = table.query_one("#log").lines
        assert len(log_lines) > 5
        assert any("It is over" in line for line in log_lines)
        headline = str(app.screen.query_one("#headline").render())
        if game == "vigo":
            assert "took the pot" in headline
        else:
            winner = table.setup.names[table.game.result.winner]
            assert headline == f"{winner} wins!"
        assert presses >= 1
        await pilot.press("b")  # back to the cantina, even when play began at a table
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)


async def until_asked(pilot) -> None:
    """Let the table play until a person here is asked to choose."""
    for _ in range(100):
        await pilot.pause()
        if getattr(pilot.app.screen, "awaiting_human", False):
            return
    raise AssertionError("no human decision came")


async def test_human_is_prompted_by_name_with_every_option_to_click():
    app = quiet_app("victim", seats="human:Ana,Expert,Treacherous")
    async with app.run_test(size=SIZE) as pilot:
        await until_asked(pilot)
        bar = app.screen.query_one(DecisionBar)
        prompt = str(bar.query_one("#prompt").render())
        assert prompt == "Ana, choose target and die:"
        labels = bar.offered()
        assert len(labels) == 6
        assert all(("Attacker" in label) or ("Victim" in label) for label in labels)
        table = app.screen
        sixth = table.game.pending.options[5]
        grid = bar.query_one(OptionGrid)
        cell = grid.cell_region(5)
        await pilot.click(grid, offset=(cell.x + 1, cell.y + 1))  # the mouse works as well
        await pilot.pause()
        assert any("lays down two cards" in line for line in table.query_one("#log").lines)
        assert table.table.moves[0].action == sixth


async def test_arrow_keys_and_enter_choose_from_the_options():
    """Besides keys 1-9 and the mouse: the arrows move the highlighted option and Enter
    chooses it (a person who tabs around the screen can play too)."""
    app = quiet_app("victim", seats="human:Ana,Expert,Treacherous")
    async with app.run_test(size=SIZE) as pilot:
        await until_asked(pilot)
        table = app.screen
        grid = table.query_one(OptionGrid)
        assert grid.has_focus and grid.cursor == 0
        options = table.game.pending.options
        await pilot.press("right", "down", "left", "right", "right", "right")
        assert grid.cursor == 5  # 0 -> 1 -> 4 -> 3 -> 4 -> 5, and no further than the last
        await pilot.press("up")
        assert grid.cursor == 2
        await pilot.press("enter")
        await pilot.pause()
        assert table.table.moves[0].action == options[2]


async def test_hot_seat_secret_choice_hidden_behind_hand_off():
    """Two humans at one keyboard: before the Supporter chooses, a hand-off screen covers the
    table, and the cards are never on screen while it shows."""
    app = quiet_app("victim", seed=3, seats="human:Ana,human:Bo,Expert")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause()
            if isinstance(app.screen, HandOffScreen):
                break
        handoff = app.screen
        assert isinstance(handoff, HandOffScreen)
        table = app.screen_stack[-2]
        supporter = table.setup.names[table.game.pending.seat]
        said = " ".join(str(widget.render()) for widget in handoff.query(Static))
        assert f"Pass the keyboard to {supporter}" in said
        assert handoff.styles.background.a == 1  # opaque: nothing of the table shows through
        assert not table.awaiting_human
        assert table.query_one(DecisionBar).offered() == []  # no card is even offered yet
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is table and table.awaiting_human
        assert any("Sabotage" in label for label in table.query_one(DecisionBar).offered())


async def test_footer_keeps_its_keys_and_dims_those_that_cannot_act():
    """While an AI thinks, choosing and the odds are dimmed in the footer, not gone, and
    do nothing (nor do the blank options, clicked or entered); while a person chooses,
    hurrying is. The bar keeps its rows of options, blank, so it keeps its height."""
    setup = TableSetup("victim", VictimSettings(), seats_from_text("you,Expert,Treacherous"), 11)
    app = CantinaApp(start=setup, animation_speed=0, pace=30, save_preferences=False)

    def footer() -> dict[str, bool]:
        return {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey)}

    async with app.run_test(size=SIZE) as pilot:
        table = app.screen
        await pilot.pause()
        assert not table.awaiting_human
        keys = footer()
        assert not keys["1"] and not keys["o"] and keys["space"] and keys["l"]
        await pilot.press("space")  # hurry: the AI seats play until the person is asked
        await pilot.pause()
        assert table.awaiting_human
        assert footer() == {**keys, "1": True, "o": True, "space": False}
        bar = table.query_one(DecisionBar)
        height = bar.size.height
        for _ in range(20):  # play until an AI seat is to choose next
            await pilot.press("1")
            await pilot.pause()
            if not table.awaiting_human:
                break
        assert not table.awaiting_human and footer() == keys
        assert bar.offered() == [] and bar.size.height == height
        moves = len(table.table.moves)
        await pilot.press("1", "o", "enter")
        await pilot.click("#options")
        await pilot.pause()
        assert len(table.table.moves) == moves and not table.odds_shown


async def test_odds_readout_toggles_with_o():
    app = quiet_app("vigo", seats="you,Expert,Bold")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.awaiting_human  # the human is Vigo: set the stake
        odds = app.screen.query_one("#odds")
        assert str(odds.render()) == ""
        await pilot.press("o")
        await pilot.pause()
        readout = str(odds.render())
        assert readout.startswith("expected credits  1:")
        options = len(app.screen.game.pending.options)
        assert all(f"  {n}:" in readout for n in range(2, options + 1))
        await pilot.press("o")
        await pilot.pause()
        assert str(odds.render()) == ""


async def test_below_80_by_24_asks_for_a_bigger_terminal():
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)


async def test_keyboard_only_from_menu_to_a_table():
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.screen.setup.game == "victim"
        assert app.screen.setup.seats[0].name == "Player 1"


async def test_theme_choice_is_remembered(tmp_path):
    app = CantinaApp(animation_speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.theme = "cantina-phosphor"
        await pilot.pause()
    again = CantinaApp(animation_speed=0)
    async with again.run_test(size=SIZE):
        assert again.theme == "cantina-phosphor"


# --- snapshots at 80x24 ------------------------------------------------------------------


def test_snapshot_menu(snap_compare):
    assert snap_compare(CantinaApp(animation_speed=0, save_preferences=False), terminal_size=SIZE)


@pytest.mark.parametrize("game", list(TABLES))
def test_snapshot_setup(snap_compare, game):
    async def open_setup(pilot):
        await pilot.press({"vigo": "v", "valdes": "d", "victim": "i"}[game])
        await pilot.pause()

    app = CantinaApp(animation_speed=0, save_preferences=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_setup)


MID_GAME = {
    "vigo": ("Expert,you,Bold,Cautious", 0, 2),
    "valdes": (None, 2, 11),
    "victim": (None, 1, 11),
}
"""Who sits where, how many human moves come before the snapshot, and the seed (seed 2
of Vigo's Favor brings the human to a vote with a pot on the table)."""


@pytest.mark.parametrize("game", list(TABLES))
def test_snapshot_table_mid_game(snap_compare, game):
    seats, moves, seed = MID_GAME[game]

    async def a_few_moves(pilot):
        await until_asked(pilot)
        for _ in range(moves):
            await pilot.press("1")
            await until_asked(pilot)

    app = quiet_app(game, seed=seed, seats=seats)
    assert snap_compare(app, terminal_size=SIZE, run_before=a_few_moves)


CRASHING = """
from cantina.app import CantinaApp


class Broken(CantinaApp):
    def on_mount(self) -> None:
        self.set_timer(0.05, self.explode)

    def explode(self) -> None:
        raise RuntimeError("the table fell over")


app = Broken(save_preferences=False)
app.run(headless=True, size=(80, 24))
raise SystemExit(app.return_code)
"""


def test_an_unhandled_exception_ends_the_app_with_one_line_and_a_failing_status(tmp_path):
    """Whatever goes wrong that nothing caught: status 1, one line on stderr naming what
    happened and where the details are (not Textual's traceback), the traceback kept."""
    env = {
        "PATH": os.environ["PATH"],
        "CANTINA_CONFIG_DIR": str(tmp_path / "config"),
        "CANTINA_LOG_DIR": str(tmp_path / "log"),
    }
    done = subprocess.run(
        [sys.executable, "-c", CRASHING], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 1
    said = done.stderr.strip().splitlines()
    assert len(said) == 1, done.stderr
    assert "RuntimeError: the table fell over" in said[0] and "Traceback" not in done.stderr
    details = (tmp_path / "log" / "crash.txt").read_text()
    assert str(tmp_path / "log" / "crash.txt") in said[0]
    assert details.startswith("Traceback") and "in explode" in details
