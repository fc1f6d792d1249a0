"""The cantina app driven through Textual's Pilot: whole games, hot-seat secrecy, the
too-small notice, remembered themes, the odds readout, and SVG snapshots at 80x24."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import msgspec
import pytest
from test_no_color import picture
from textual.widgets import Footer, Input, OptionList, Select, Static

from cantina.ai.temperament import temperaments
from cantina.app import CantinaApp
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import TableSetup, seats_from_text
from screens.backroom import HostSetupScreen
from screens.dialogs import HandOffScreen
from screens.menu import MenuScreen
from screens.options import OptionGrid
from screens.result import ResultScreen
from screens.rules import RulesScreen
from screens.settings import SettingsScreen
from screens.setup import HUMAN, SetupScreen
from screens.table import TableScreen
from screens.table_widgets import DecisionBar, Line
from screens.textual_compat import FooterKey, on_each_frame
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


async def test_below_80_by_24_the_notice_is_all_there_is_on_screen():
    """The notice covers the whole screen (not one row of the menu, with the menu showing
    through around it), its sentence readable, in the middle."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert app.screen.styles.background.a == 1
        drawn = picture(app)
        rows = ["".join(row[:70]) for row in drawn.text[:20]]
        written = [(y, row) for y, row in enumerate(rows) if row.strip()]
        assert [row.strip() for _, row in written] == [
            "Please enlarge the terminal to at least 80 x 24."
        ]
        y, row = written[0]
        left, right = len(row) - len(row.lstrip()), len(row) - len(row.rstrip())
        assert abs(left - right) <= 1 and abs(y - 10) <= 1
        paper = {drawn.paper[(y, x)] for y in range(20) for x in range(70)}
        assert len(paper) == 1, "one opaque background, nothing of the menu"
        assert set(drawn.ink.values()) - paper, "the sentence is drawn in a colour of its own"


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


# --- the menu ----------------------------------------------------------------------------


async def test_the_arrow_keys_move_through_the_menu():
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.focused is app.screen.query_one("#play-vigo")
        await pilot.press("down", "down", "down")
        assert app.focused is app.screen.query_one("#new-campaign")
        await pilot.press("up")
        assert app.focused is app.screen.query_one("#play-victim")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen) and app.screen.game == "victim"


async def test_the_menu_footer_shows_every_key_within_80_columns():
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        assert footer.virtual_size.width <= SIZE[0], "nothing hidden past the edge"
        shown = "".join(picture(app).text[SIZE[1] - 1])
        for key in ("v d i Play", "c New campaign", "u Resume", "r Rules", "s Settings"):
            assert key in shown, shown
        assert "q Quit" in shown and "^q" not in shown  # one way to quit is enough here
        assert "^p palette" in shown


# --- the table setup ---------------------------------------------------------------------


async def open_setup(pilot, key: str, *, campaign: bool = False) -> SetupScreen:
    if campaign:
        await pilot.press("c")
        await pilot.pause()
    await pilot.press(key)
    await pilot.pause()
    await pilot.pause()  # the screen is ready for choices after its first refresh
    screen = pilot.app.screen
    assert isinstance(screen, SetupScreen)
    return screen


async def focus_by_tab(pilot, selector: str) -> None:
    """Press tab until the widget at `selector` has the focus, as a person would."""
    target = pilot.app.screen.query_one(selector)
    for _ in range(40):
        if target.has_focus:
            return
        await pilot.press("tab")
    raise AssertionError(f"tab never reached {selector}")


@pytest.mark.parametrize("which", ["#kind-1", "#seat-count"])
async def test_an_open_list_covers_whole_rows(which):
    """An open list is a box as wide as the screen over the rows under it: no part of a
    row shows beside its options ("1 Pla2", "BaTreacherous")."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, "v")
        await focus_by_tab(pilot, which)
        await pilot.press("enter")
        await pilot.pause()
        select = setup.query_one(which, Select)
        assert select.expanded
        listed = select.query_one(OptionList)
        assert listed.region.x == 0 and listed.region.width == SIZE[0]
        assert listed.styles.background.a == 1
        labels = {str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)}
        drawn = picture(app)
        top, *rows, bottom = drawn.lines(listed.region)
        assert top.startswith("╭") and top.endswith("╮")
        assert bottom.startswith("╰") and bottom.endswith("╯")
        for row in rows:
            assert row[0] == row[-1] == "│" and row[1:-1].strip() in labels, row


async def test_moving_over_the_temperaments_describes_each():
    """The about line tells of the temperament highlighted as the person moves over the
    open list (before anything is chosen), and of the one chosen once it closes."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, "v")
        about = setup.query_one("#about", Static)
        select = setup.query_one("#kind-1", Select)
        assert select.value == "Expert"
        await focus_by_tab(pilot, "#kind-1")
        await pilot.press("enter")
        await pilot.pause()
        said = []
        for _ in range(3):
            await pilot.press("down")
            await pilot.pause()
            said.append(str(about.render()))
        assert said == [
            "Cautious: Small stakes, early splits, and never risks a pot already won.",
            "Bold: Knows the odds but leans toward the bigger pot.",
            "Reckless: Challenges, raises and rolls again whenever there is a pot to chase.",
        ]
        assert select.value == "Expert", "moving is not choosing"
        assert about.region.bottom <= select.query_one(OptionList).region.y, "not covered"
        await pilot.press("escape")
        await pilot.pause()
        assert str(about.render()).startswith("Expert: Plays the exact odds")
        await pilot.press("enter", "up")  # up from Expert: Human
        await pilot.pause()
        assert str(about.render()) == "Human: a person at this keyboard."


async def test_a_seat_is_named_after_its_temperament_until_the_person_names_it():
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, "v")

        def names() -> list[str]:
            return [setup.query_one(f"#name-{seat}", Input).value for seat in range(4)]

        def kind(seat: int) -> Select:
            return setup.query_one(f"#kind-{seat}", Select)

        assert names() == ["Player 1", "Expert", "Bold", "Cautious"]
        await focus_by_tab(pilot, "#kind-2")
        await pilot.press("enter", "down", "down", "enter")  # seat 3: Bold -> Superstitious
        await pilot.pause()
        assert kind(2).value == "Superstitious"
        assert names() == ["Player 1", "Expert", "Superstitious", "Cautious"]
        kind(2).value = "Expert"  # two seats of one temperament: numbered
        await pilot.pause()
        assert names() == ["Player 1", "Expert 1", "Expert 2", "Cautious"]
        kind(0).value = "Cautious"
        kind(2).value = HUMAN
        await pilot.pause()
        assert names() == ["Cautious 1", "Expert", "Player 3", "Cautious 2"]
        await focus_by_tab(pilot, "#name-3")  # the person names seat 4 ...
        await pilot.press("end", "ctrl+u", *"Zed")
        kind(3).value = "Bold"  # ... and it keeps that name whatever it plays
        kind(1).value = "Bold"
        await pilot.pause()
        assert names() == ["Cautious", "Bold", "Player 3", "Zed"]
        setup.query_one("#seat-count", Select).value = 5  # a fifth seat, Reckless
        await pilot.pause()
        assert names()[:4] == ["Cautious", "Bold", "Player 3", "Zed"]
        assert setup.query_one("#name-4", Input).value == "Reckless"
        await pilot.press("ctrl+s")
        await pilot.pause()
        (table,) = [screen for screen in app.screen_stack if isinstance(screen, TableScreen)]
        assert [(seat.name, seat.temperament) for seat in table.setup.seats] == [
            ("Cautious", "Cautious"),
            ("Bold", "Bold"),
            ("Player 3", None),
            ("Zed", "Bold"),
            ("Reckless", "Reckless"),
        ]


@pytest.mark.parametrize("game", ["vigo", "valdes"])
async def test_the_starting_bank_is_set_at_the_table(game):
    """CA-1's starting bank, offered from the game's registry entry, on the seats line."""
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, {"vigo": "v", "valdes": "d"}[game])
        bank = setup.query_one("#starting-bank", Select)
        assert bank.parent is setup.query_one("#seat-count").parent
        assert bank.value == 20
        bank.value = 35
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen) and table.setup.settings.starting_bank == 35
        state = table.game.state
        if game == "vigo":
            assert state.start_banks == [35] * 4
        else:  # every seat's ante is in the pot
            assert state.banks == [34] * 4 and state.pot == 4


async def test_victim_has_no_starting_bank():
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, "i")
        assert not setup.query("#starting-bank")


def on_screen(screen) -> list[str]:
    """Every widget on show that lies (partly) off the screen, or under its footer."""
    room = screen.region
    footer = screen.query_one(Footer).region
    return [
        f"{widget!r} at {widget.region}"
        for widget in screen.query("*")
        if widget.display
        and widget.region.area
        and not isinstance(widget, Footer)
        and widget not in screen.query_one(Footer).query("*")
        and (not room.contains_region(widget.region) or widget.region.overlaps(footer))
    ]


@pytest.mark.parametrize("campaign", [False, True])
@pytest.mark.parametrize("key", ["v", "d", "i"])
async def test_the_setup_fits_80_by_24_with_every_seat(key, campaign):
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, key, campaign=campaign)
        count = setup.query_one("#seat-count", Select)
        count.value = setup.seat_range[-1]
        await pilot.pause()
        assert all(row.display for row in setup.query(".seat-row"))
        assert setup.query_one("#start").region.area
        assert on_screen(setup) == []


async def test_the_shared_tables_setup_fits_80_by_24_with_every_seat_and_stand_in():
    """The SSH host's setup (no seed, a stand-in line), with its second seat a person;
    the stand-in's list shows the longest temperament's name uncut (at 10 columns,
    "Cautious" read "Cautiou")."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        setup = HostSetupScreen("vigo")
        app.push_screen(setup)
        await pilot.pause()
        setup.query_one("#seat-count", Select).value = 8
        await pilot.pause()
        assert on_screen(setup) == []
        assert setup.query_one("#name-1", Input).value == "Player 2"
        setup.query_one("#kind-1", Select).value = "Loyal"  # it follows the seat's kind
        await pilot.pause()
        assert setup.query_one("#name-1", Input).value == "Loyal 1"
        stand_in = setup.query_one("#stand-in", Select)
        for name in (t.name for t in temperaments().values()):
            stand_in.value = name
            await pilot.pause()
            label = stand_in.query_one("#label")
            assert label.region.width >= len(name), (name, label.region)
        assert on_screen(setup) == []


async def test_the_seed_typed_is_the_seed_the_table_plays():
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, "d")
        assert setup.query_one("#seed", Input).placeholder == "random"
        await focus_by_tab(pilot, "#seed")
        await pilot.press(*"4711", "ctrl+s")
        await until_asked(pilot)
        table = app.screen
        assert isinstance(table, TableScreen) and table.setup.seed == 4711
        assert_dice_from_seed(table)


async def test_a_seed_left_blank_is_drawn_and_is_the_seed_the_table_plays():
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_setup(pilot, "i")
        await pilot.press("ctrl+s")
        await until_asked(pilot)
        table = app.screen
        assert isinstance(table, TableScreen) and isinstance(table.setup.seed, int)
        assert_dice_from_seed(table)


def assert_dice_from_seed(table: TableScreen) -> None:
    """The game at the table is the one its setup's seed deals: a fresh game from it,
    given the same moves, stands exactly where the table's does."""
    again = table.setup.new_game()
    for move in table.table.moves:
        again.apply(move.seat, move.action)
    assert msgspec.json.encode(again.state) == msgspec.json.encode(table.game.state)


# --- settings ----------------------------------------------------------------------------


async def test_the_turn_bell_is_a_setting_and_is_remembered():
    app = CantinaApp(animation_speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.preferences.bell is True  # on by default
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        bell = app.screen.query_one("#bell", Select)
        assert bell.value is True
        label = bell.parent.children[bell.parent.children.index(bell) - 1]
        assert str(label.render()) == "Bell on your turn"
        await focus_by_tab(pilot, "#bell")
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert bell.value is False and app.preferences.bell is False
    again = CantinaApp(animation_speed=0)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.preferences.bell is False
        await pilot.press("s")
        await pilot.pause()
        assert again.screen.query_one("#bell", Select).value is False


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


# --- no growth -----------------------------------------------------------------------------


async def test_focus_changes_and_screen_pushes_leave_no_footer_keys_behind():
    """Every footer made new keys at each focus change and screen push, and Textual kept
    the old ones alive (a watcher each on the footer's `compact`, with all each key holds):
    about 250,000 objects more for every hundred tabs and twenty screens, in the local app
    and in every session of the host. Now only the keys on show are alive."""
    app = CantinaApp(animation_speed=0, save_preferences=False)

    def live_keys() -> int:
        gc.collect()
        return sum(isinstance(thing, FooterKey) for thing in gc.get_objects())

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = live_keys()  # the menu's, and any an earlier test left for the collector
        for _ in range(12):
            for _ in range(4):
                await pilot.press("tab")
            await pilot.press("s")  # the settings screen, and back
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        footer = app.screen.query_one(Footer)
        on_show = len(footer.query(FooterKey))
        assert len(getattr(footer, "__watchers", {}).get("compact", [])) <= on_show
        assert live_keys() - before <= on_show, "at most one set of keys on its way out"


@pytest.mark.slow
@pytest.mark.timeout(0)  # a long run on purpose: no 10-minute limit
async def test_a_thousand_focus_changes_and_screen_pushes_leave_the_live_objects_flat():
    """The live object count after 900 focus changes and 100 screen pushes, against the
    count once Textual's bounded caches have filled (they hold about 30 screens' worth):
    flat. Before the footer kept only the keys on show, each 10 focus changes and a push
    left about 23,000 objects alive, some 2.3 million over this run. (About a minute:
    `-m slow`; the test above is the quick guard.)"""
    app = CantinaApp(animation_speed=0, save_preferences=False)

    async def rounds(count: int) -> None:
        for _ in range(count):
            for _ in range(9):
                app.screen.focus_next()
                await pilot.pause()
            await app.push_screen(SettingsScreen())
            await pilot.pause()
            await app.pop_screen()
            await pilot.pause()

    def live() -> int:
        gc.collect()
        return len(gc.get_objects())

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await rounds(40)  # the caches fill
        before = live()
        await rounds(100)
        grown = live() - before
        assert isinstance(app.screen, MenuScreen)
        assert grown < 2_000, f"{grown} more live objects after 1,000 focus changes and pushes"


# --- what a focus change draws -----------------------------------------------------------


async def test_a_focus_change_draws_a_partial_frame_not_the_whole_screen():
    """Textual's screen repainted itself whole at every focus change (its `focused` is a
    reactive that repaints): a Tab drew every widget on the screen again, in the lobby
    most of a Tab's cost to the host, and the longest step of a session sending Tabs.
    Now the frames after a Tab are partial: the widgets it changes, and the footer."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    frames: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        on_each_frame(app, lambda screen, update: frames.append(type(update).__name__))
        moved = 0
        for _ in range(6):
            before = app.screen.focused
            await pilot.press("tab")
            await pilot.pause(0.05)
            moved += app.screen.focused is not before
        assert moved == 6 and frames, "the focus moved, and frames were drawn"
        assert "LayoutUpdate" not in frames, f"whole frames: {frames}"


async def test_question_mark_on_the_menu_shows_the_rules():
    """Seen in a play-test: `?` (and F1), which show the rules at a table and the help in
    the back room, did nothing on the menu, whose footer offers `r Rules` among many."""
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in ("question_mark", "f1"):
            await pilot.pause()
            assert isinstance(app.screen, MenuScreen)
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen) and app.screen.game_id is None
            await pilot.press("escape")
            await pilot.pause()


async def test_the_victim_board_names_no_role_before_the_rolls_for_it_are_told():
    """The Victim! board took each seat's role from the state its whole step left: at the
    table's opening it named the first Attacker while the initiative rolls were still
    being told one by one, and gave away who had won them. It names the roles once they
    are told (RolesSet), and the same roles as the game's once everything is shown."""
    setup = TableSetup("victim", VictimSettings(), seats_from_text("you,Expert,Bold"), 3)
    app = CantinaApp(start=setup, animation_speed=0, pace=1.0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause()
            if isinstance(app.screen, TableScreen):
                break
        table = app.screen
        assert isinstance(table, TableScreen)
        assert table.dealer.shown < len(table.table.log), "the opening is still being told"

        def roles_drawn() -> list[str]:
            return [str(table.query_one(f"#who-{seat}", Line).text) for seat in range(3)]

        assert not any(role in line for line in roles_drawn() for role in ("Attacker", "Victim")), (
            roles_drawn()
        )
        for _ in range(400):
            await pilot.press("space")  # hurry what is shown, up to the person's choice
            if table.dealer.shown == len(table.table.log):
                break
        await pilot.pause()
        state = table.game.state
        assert "Attacker" in roles_drawn()[state.attacker], roles_drawn()
        assert "Supporter" in roles_drawn()[state.supporter], roles_drawn()
