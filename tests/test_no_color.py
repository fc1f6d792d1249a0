"""NO_COLOR: the cantina must read without colour.

Textual honours NO_COLOR (read from the environment when the App is made) by turning every
colour it draws into a grey. These tests drive the real app to the menu, the setup screens
and a mid-game table of each game with NO_COLOR set, read back what was drawn (the SVG
screenshot: each cell's character, text colour and background), and check two things: only
greys are drawn, and every state the colour app shows by colour is also there as text (the
cube's R/B, ticked boxes' X, the seat to play's ▶, the slate's V/D and ✓/✗, health as a
number). The same colour check run on the colour app must find colour, so it is not vacuous.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

import pytest
from rich.terminal_theme import SVG_EXPORT_THEME
from textual.geometry import Region

from cantina.app import CantinaApp
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import TableSetup, seats_from_text
from screens.status import call_letter
from screens.table import TableScreen

SIZE = (80, 24)
CELL_WIDTH, LINE_HEIGHT, FIRST_BASELINE, FIRST_TOP = 12.2, 24.4, 20.0, 1.5
"""Where rich's SVG export (Textual's screenshots) draws the cells: Fira Code at 20 px."""
TERMINAL_DEFAULTS = {SVG_EXPORT_THEME.foreground_color.hex, SVG_EXPORT_THEME.background_color.hex}
"""What the exporter draws where the app asks for no colour at all: the terminal's own."""

TABLES = {
    "vigo": (VigoSettings(seats=4), "Expert,you,Bold,Cautious", 2, 0),
    "valdes": (ValDesSettings(seats=3, ante=1), "you,Expert,Superstitious", 11, 2),
    "victim": (VictimSettings(), "you,Expert,Treacherous", 11, 1),
}
"""Settings, seats, seed, and how many human moves come first (the snapshot tests' tables:
Vigo's Favor at a vote with a pot, Val-Des after two sets, Victim! at the Supporter's plan)."""

FACE_LETTERS = {"red": "R", "blue": "B", None: "?"}


@dataclass
class Picture:
    """What was drawn, cell by cell."""

    text: list[list[str]] = field(default_factory=lambda: [[" "] * SIZE[0] for _ in range(SIZE[1])])
    ink: dict[tuple[int, int], str] = field(default_factory=dict)
    """The text colour of each cell that has a character."""
    paper: dict[tuple[int, int], str] = field(default_factory=dict)
    """The background colour of each cell."""

    def colours(self) -> set[str]:
        return set(self.ink.values()) | set(self.paper.values())

    def coloured(self) -> set[str]:
        """The colours drawn that are not greys (nor the terminal's own default)."""
        return {c for c in self.colours() - TERMINAL_DEFAULTS if not is_grey(c)}

    def lines(self, region: Region) -> list[str]:
        rows = self.text[region.y : region.bottom]
        return ["".join(row[region.x : region.right]) for row in rows]

    def within(self, region: Region) -> str:
        return "\n".join(self.lines(region))

    def papers(self, region: Region) -> set[str]:
        return {
            self.paper[(y, x)]
            for y in range(region.y, region.bottom)
            for x in range(region.x, region.right)
            if (y, x) in self.paper
        }


def is_grey(colour: str) -> bool:
    red, green, blue = bytes.fromhex(colour.removeprefix("#"))
    return red == green == blue


def brightness(colour: str) -> int:
    return sum(bytes.fromhex(colour.removeprefix("#"))) // 3


def picture(app: CantinaApp) -> Picture:
    """Read the screen back from Textual's SVG screenshot."""
    svg = re.sub(r"terminal-\d+-", "terminal-", app.export_screenshot())
    inks = dict(re.findall(r"\.(terminal-r\d+) \{ fill: (#[0-9a-f]{6})", svg))
    drawn = Picture()
    for paper, x, y, width in re.findall(
        r'<rect fill="(#[0-9a-f]{6})" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" '
        r'height="[\d.]+" shape-rendering="crispEdges"/>',
        svg,
    ):
        row = round((float(y) - FIRST_TOP) / LINE_HEIGHT)
        first = round(float(x) / CELL_WIDTH)
        for column in range(first, first + round(float(width) / CELL_WIDTH)):
            drawn.paper[(row, column)] = paper
    for style, x, y, text in re.findall(
        r'<text class="(terminal-r\d+)" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', svg
    ):
        row = round((float(y) - FIRST_BASELINE) / LINE_HEIGHT)
        first = round(float(x) / CELL_WIDTH)
        for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            if char != "\n" and first + offset < SIZE[0]:
                drawn.text[row][first + offset] = char
                drawn.ink[(row, first + offset)] = inks[style]
    assert drawn.paper and drawn.ink, "nothing read back from the screenshot"
    return drawn


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def no_color(monkeypatch):
    """NO_COLOR as a terminal user sets it: Textual reads it when the App is made."""
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture
def colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)


def menu_app() -> CantinaApp:
    return CantinaApp(animation_speed=0, save_preferences=False)


def table_app(game: str) -> CantinaApp:
    settings, seats, seed, _ = TABLES[game]
    setup = TableSetup(game, settings, seats_from_text(seats), seed)
    return CantinaApp(start=setup, animation_speed=0, pace=0, save_preferences=False)


async def until_asked(pilot) -> TableScreen:
    for _ in range(100):
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, TableScreen) and screen.awaiting_human:
            return screen
    raise AssertionError("no human decision came")


async def mid_game(pilot, game: str) -> TableScreen:
    table = await until_asked(pilot)
    for _ in range(TABLES[game][3]):
        await pilot.press("1")
        table = await until_asked(pilot)
    return table


# --- no colour drawn ---------------------------------------------------------------------


async def test_the_menu_is_drawn_in_greys_and_the_focused_item_stands_out(no_color):
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.no_color
        drawn = picture(app)
        assert drawn.coloured() == set()
        for label in ("Vigo's Favor  [v]", "Val-Des  [d]", "Victim!  [i]", "Quit  [q]"):
            assert any(label in "".join(row) for row in drawn.text)
        focused = app.screen.query_one("#play-vigo")
        other = app.screen.query_one("#play-valdes")
        assert focused.has_focus
        # Focus reverses the label: it is drawn on a far lighter grey than any other item.
        lit = max(drawn.papers(focused.region), key=brightness)
        unlit = max(drawn.papers(other.region), key=brightness)
        assert brightness(lit) - brightness(unlit) > 96


@pytest.mark.parametrize(
    ("game", "key", "ticks"), [("vigo", "v", ("#rising-stakes",)), ("victim", "i", ())]
)
async def test_setup_screens_show_ticked_boxes_with_an_x(no_color, game, key, ticks):
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        await pilot.pause()
        for tick in ticks:
            await pilot.click(tick)
        await pilot.pause()
        drawn = picture(app)
        assert drawn.coloured() == set()
        boxes = list(app.screen.query("Tick"))
        assert boxes and any(box.value for box in boxes)
        for box in boxes:
            shown = drawn.within(box.region)
            assert ("▐X▌" in shown) == box.value, shown


@pytest.mark.parametrize("game", list(TABLES))
async def test_mid_game_tables_are_drawn_in_greys(no_color, game):
    app = table_app(game)
    async with app.run_test(size=SIZE) as pilot:
        table = await mid_game(pilot, game)
        drawn = picture(app)
        assert drawn.coloured() == set()
        # The seat to play is named in words on the prompt line.
        seat = table.game.pending.seat
        assert table.names[seat] in drawn.within(table.query_one("#prompt").region)
        check_board_in_words(game, table, drawn)


def check_board_in_words(game: str, table: TableScreen, drawn: Picture) -> None:
    """What the board shows by colour is there in characters too."""
    s = table.game.state
    if game == "vigo":
        rows = drawn.lines(table.query_one("#seats").region)
        marked = [row for row in rows if row.lstrip().startswith("▶")]
        assert len(marked) == 1 and table.names[table.game.pending.seat] in marked[0]
        for cube in ("#favor", "#last-roll"):
            die = table.query_one(cube)
            assert FACE_LETTERS[die.face] in drawn.within(die.region)
    elif game == "valdes":
        cup = table.query_one("#cup")
        assert cup.face is not None and FACE_LETTERS[cup.face] in drawn.within(cup.region)
        header, cube_row, *players = drawn.lines(table.query_one("#slate").region)
        assert header.split()[0] == "Set"
        assert cube_row.split()[1:] == [call_letter(face) for face in s.reveals]
        for row, score in zip(players, s.scores, strict=True):
            marks = [cell for cell in row.split() if cell[-1:] in ("✓", "✗")]
            assert len(marks) == len(s.reveals) and all(m[0] in "VD" for m in marks)
            assert row.split()[-1] == str(score)
    else:
        top = s.settings.starting_health
        for seat, health in enumerate(s.health):
            assert f"{health}/{top}" in drawn.within(table.query_one(f"#health-{seat}").region)
        for face in table.query(".face"):
            if face.display and face.face is not None:
                assert face.face[0].upper() in drawn.within(face.region)


# --- the check is not vacuous ------------------------------------------------------------


async def test_the_colour_check_finds_colour_in_the_colour_menu(colour):
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.no_color
        assert picture(app).coloured()


@pytest.mark.parametrize("game", list(TABLES))
async def test_the_colour_check_finds_colour_at_colour_tables(colour, game):
    app = table_app(game)
    async with app.run_test(size=SIZE) as pilot:
        await mid_game(pilot, game)
        assert picture(app).coloured()
