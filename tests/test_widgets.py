"""The reusable widgets: dice (screens/dice.py) and status (screens/status.py)."""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static

from screens.dice import ChanceCube, Die, FaceDie, SixDie, TwelveDie
from screens.drawing import component_style
from screens.footer import CantinaFooter, KeptKey
from screens.status import Credits, HealthPips, Slate
from screens.textual_compat import FooterKey

STYLES = Path(__file__).resolve().parent.parent / "styles" / "widgets.tcss"

SLATE_NAMES = ["Alice", "[b]Evil[/b]", "Zed the Long-Winded Smuggler", "Bo"]
SLATE_REVEALS = ["red", "blue", "red", "red", "blue", "blue", "red"]
SLATE_CALLS = [
    {0: "red", 1: "blue", 2: "red", 3: "blue"},
    {0: "blue", 1: "blue", 2: "red", 3: "red"},
    {0: "red", 1: "red", 2: "blue", 3: "red"},
    {0: "red", 1: "blue", 2: "red", 3: "red"},
    {0: "blue", 1: "blue", 2: "blue", 3: "red"},
    {0: "red", 1: "blue", 2: "blue", 3: "blue"},
    {0: "red", 1: "red", 2: "blue", 3: "red"},
    {0: "blue", 1: "red"},  # a tie-break set in play: only two contenders, cube not shown
]
SLATE_SCORES = [7, 7, 4, 5]


class GalleryApp(App[None]):
    """Every widget with fixed values, animation off."""

    CSS_PATH = str(STYLES)
    CSS = """
    Horizontal { height: auto; margin-bottom: 1; }
    Die, HealthPips, Credits { margin-right: 1; }
    .caption { width: auto; margin-right: 1; color: $text-muted; }
    """

    animation_speed = 0

    def __init__(self) -> None:
        super().__init__()
        self.settled: list[Die.Settled] = []

    def on_die_settled(self, message: Die.Settled) -> None:
        self.settled.append(message)

    def compose(self) -> ComposeResult:
        with Vertical():
            with Horizontal():
                yield ChanceCube("red", id="cube-red")
                yield ChanceCube("blue", id="cube-blue")
                yield ChanceCube(id="cube-none")
                for value in range(1, 7):
                    yield SixDie(value, id=f"d6-{value}")
                yield SixDie(id="d6-none")
            with Horizontal():
                yield TwelveDie(12, id="d12-12")
                yield TwelveDie(7, id="d12-7")
                yield TwelveDie(id="d12-none")
                yield FaceDie("support", "green", id="support")
                yield FaceDie("sabotage", "red", id="sabotage")
                yield FaceDie("neutral", "white", id="neutral")
                yield FaceDie("neutral", id="neutral-none")
            with Horizontal():
                yield HealthPips(3, 5, id="health")
                yield HealthPips(0, 5, id="dead")
                yield HealthPips(5, 5)
                yield Credits("Pot", 8, id="pot")
                yield Credits("Bank", 120)
            yield Slate(id="slate")

    def on_mount(self) -> None:
        self.query_one(Slate).update_slate(SLATE_NAMES, SLATE_REVEALS, SLATE_CALLS, SLATE_SCORES)


class BareApp(App[None]):
    """An app with no `animation_speed` attribute: dice treat it as speed 1."""

    CSS_PATH = str(STYLES)

    def compose(self) -> ComposeResult:
        yield SixDie(id="die")
        yield Static("")


def pilot_test(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Run an `async def` Pilot test in its own event loop: the project has no async plugin
    for pytest, and this keeps the file working with or without one."""

    @functools.wraps(test)
    def run() -> None:
        asyncio.run(test())

    return run


def settled(app: GalleryApp, die: Die) -> list[Die.Settled]:
    """The `Settled` messages from `die` that reached the app's `on_die_settled`."""
    return [message for message in app.settled if message.die is die]


def shown(die: Die) -> str:
    return str(die.render())


# --- dice ------------------------------------------------------------------------------


@pilot_test
async def test_roll_with_animation_off_sets_the_face_at_once_and_posts_settled():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#d6-3", SixDie)
        die.roll(5)
        assert die.value == 5
        assert not die.has_class("-rolling") and not die.rolling
        await pilot.pause()
        [message] = settled(app, die)
        assert message.final == 5 and message.control is die
        assert shown(die) == "╭●───●╮\n│  ●  │\n╰●───●╯"


@pilot_test
async def test_every_die_settles_at_once_with_animation_off():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        rolls = [
            ("#cube-none", "blue"),
            ("#d6-none", 6),
            ("#d12-none", 11),
            ("#support", "white"),
            ("#neutral-none", "red"),
        ]
        for selector, final in rolls:
            die = app.query_one(selector, Die)
            die.roll(final)
            assert getattr(die, die.FACE_ATTRIBUTE) == final
            await pilot.pause()
            assert len(settled(app, die)) == 1
        assert "B" in shown(app.query_one("#cube-none", Die))
        assert "11" in shown(app.query_one("#d12-none", Die))
        assert "W" in shown(app.query_one("#support", Die))


async def until(pilot, condition, timeout: float = 5.0) -> None:
    """Wait until `condition()` holds: a tumble's length varies with the machine's load,
    so the tests wait for the state they check, not for a fixed time."""
    waited = 0.0
    while not condition():
        if waited > timeout:
            raise AssertionError(f"still waiting after {timeout} s")
        await pilot.pause(0.02)
        waited += 0.02
    await pilot.pause()  # and let what was posted meanwhile (a Settled message) land


@pilot_test
async def test_roll_with_animation_on_tumbles_then_settles():
    app = GalleryApp()
    app.animation_speed = 2  # a slow tumble (0.9 s), so a busy machine still catches it
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#d6-4", SixDie)
        final_face = shown(die)
        die.roll(4)
        assert die.has_class("-rolling") and die.rolling
        seen = {die.value}
        faces = {shown(die)}
        for _ in range(4):
            await pilot.pause(0.04)
            seen.add(die.value)
            faces.add(shown(die))
        assert seen - {4}, "the die showed no other face while tumbling"
        assert faces - {final_face}
        assert not settled(app, die)
        await until(pilot, lambda: not die.rolling)
        assert die.value == 4 and shown(die) == final_face
        assert not die.has_class("-rolling") and not die.rolling
        assert len(settled(app, die)) == 1


@pilot_test
async def test_a_tumbling_die_is_drawn_in_the_rolling_style_until_it_settles():
    """The tumble's look is drawn, not set by restyling the die (see `Die.roll`): it must
    still show while the die tumbles and go when it settles, on the same face or not."""
    app = GalleryApp()
    app.animation_speed = 2
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#d12-12", TwelveDie)

        def corner_colour():
            top = die.render_lines(Region(0, 0, 7, 3))[0]
            return next(iter(top)).style.color

        at_rest = corner_colour()
        die._random_face = lambda: 12  # a tumble through the face it shows and settles on:
        die.roll(12)  # only the style tells the tumble apart, and nothing else repaints
        await pilot.pause()
        assert corner_colour() == die._style("die--rolling").color != at_rest
        die.finish()
        await pilot.pause()
        assert corner_colour() == at_rest


@pilot_test
async def test_a_tumble_shows_only_faces_of_its_kind():
    app = GalleryApp()
    app.animation_speed = 1
    async with app.run_test(size=(80, 24)) as pilot:
        neutral = app.query_one("#neutral", FaceDie)
        d12 = app.query_one("#d12-12", TwelveDie)
        neutral.roll("red")
        d12.roll(3)
        faces, values = set(), set()
        while neutral.rolling or d12.rolling:
            faces.add(neutral.face)
            values.add(d12.value)
            await pilot.pause(0.02)
        assert faces <= {"red", "white"} and len(faces) == 2
        assert values <= set(range(1, 13)) and len(values) > 1
        assert neutral.face == "red" and d12.value == 3


@pilot_test
async def test_finish_settles_at_once():
    app = GalleryApp()
    app.animation_speed = 1
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#cube-red", ChanceCube)
        die.roll("blue")
        assert die.rolling
        die.finish()
        assert die.face == "blue" and not die.rolling and not die.has_class("-rolling")
        await pilot.pause()
        assert len(settled(app, die)) == 1
        await pilot.pause(0.6)
        assert die.face == "blue"
        assert len(settled(app, die)) == 1, "the stopped tumble must not settle again"
        die.finish()  # at rest: nothing happens
        await pilot.pause()
        assert len(settled(app, die)) == 1


@pilot_test
async def test_quick_roll_and_animation_level_none_skip_the_tumble():
    app = GalleryApp()
    app.animation_speed = 1
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#d12-7", TwelveDie)
        die.roll(9, quick=True)
        assert die.value == 9 and not die.rolling
        app.animation_level = "none"
        die.roll(2)
        assert die.value == 2 and not die.rolling
        await pilot.pause()
        assert [m.final for m in settled(app, die)] == [9, 2]


@pilot_test
async def test_rolling_again_mid_tumble_settles_the_first_roll():
    app = GalleryApp()
    app.animation_speed = 0.5
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#support", FaceDie)
        die.roll("red")
        die.roll("green")
        assert die.rolling
        await until(pilot, lambda: not die.rolling)
        await pilot.pause()
        assert die.face == "green" and not die.rolling
        assert [m.final for m in settled(app, die)] == ["red", "green"]


@pilot_test
async def test_an_app_without_animation_speed_tumbles_at_speed_one():
    app = BareApp()
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one(SixDie)
        die.roll(6)
        assert die.rolling
        await until(pilot, lambda: not die.rolling)
        assert die.value == 6 and not die.rolling


@pilot_test
async def test_tumbling_never_draws_from_the_global_random_generator():
    random.seed(1234)
    before = random.getstate()
    app = GalleryApp()
    app.animation_speed = 0.5
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#d6-1", SixDie)
        die.roll(2)
        await until(pilot, lambda: not die.rolling)
        assert die.value == 2
    assert random.getstate() == before


@pilot_test
async def test_a_face_die_can_become_another_kind():
    """Victim! shows whichever die the Supporter rolls in one widget: a new kind draws its
    marker and tumbles through its own faces."""
    app = GalleryApp()
    app.animation_speed = 1
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#support", FaceDie)
        die.kind = "neutral"
        die.roll("red")
        faces = set()
        while die.rolling:
            faces.add(die.face)
            await pilot.pause(0.02)
        await pilot.pause()
        assert faces <= {"red", "white"}
        assert shown(die) == "╭ N ──╮\n│  R  │\n╰─────╯"
        try:
            die.kind = "lucky"
        except ValueError:
            assert die.kind == "neutral"
        else:
            raise AssertionError("FaceDie became an unknown kind")


def test_face_die_rejects_an_unknown_kind():
    try:
        FaceDie("lucky")
    except ValueError as error:
        assert "lucky" in str(error)
    else:
        raise AssertionError("FaceDie accepted an unknown kind")


@pilot_test
async def test_faces_read_without_colour():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)):
        assert shown(app.query_one("#cube-red", Die)) == "╭─────╮\n│  R  │\n╰─────╯"
        assert "│  B  │" in shown(app.query_one("#cube-blue", Die))
        assert "│  ?  │" in shown(app.query_one("#cube-none", Die))
        assert shown(app.query_one("#d12-12", Die)) == "╭─────╮\n│ 12  │\n╰─────╯"
        assert shown(app.query_one("#support", Die)) == "╭ S+ ─╮\n│  G  │\n╰─────╯"
        assert shown(app.query_one("#sabotage", Die)).startswith("╭ S- ─╮\n│  R  │")
        assert shown(app.query_one("#neutral", Die)).startswith("╭ N ──╮\n│  W  │")
        assert shown(app.query_one("#d6-6", Die)) == "╭●───●╮\n│●   ●│\n╰●───●╯"
        assert shown(app.query_one("#d6-none", Die)) == "╭─────╮\n│     │\n╰─────╯"


# --- status ----------------------------------------------------------------------------


@pilot_test
async def test_health_pips_show_hearts_and_the_number():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        health = app.query_one("#health", HealthPips)
        assert str(health.render()) == "♥♥♥♡♡ 3/5"
        assert str(app.query_one("#dead", HealthPips).render()) == "✗ 0/5"
        health.health = 1
        health.maximum = 3
        await pilot.pause()
        assert str(health.render()) == "♥♡♡ 1/3"
        assert health.size.width == len("♥♡♡ 1/3")


@pilot_test
async def test_credits_render_and_flash_when_changed():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        pot = app.query_one("#pot", Credits)
        assert str(pot.render()) == "Pot  8 ¢"
        pot.amount = 12  # animation off: no flash
        await pilot.pause()
        assert str(pot.render()) == "Pot 12 ¢"
        assert not pot.has_class("-changed")

        app.animation_speed = 1
        pot.amount = 20
        assert pot.has_class("-changed")
        await until(pilot, lambda: not pot.has_class("-changed"))
        assert str(pot.render()) == "Pot 20 ¢"


@pilot_test
async def test_status_widgets_resize_when_a_figure_changes_their_width():
    """A new figure only repaints them; one of another width also resizes them."""
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        pot = app.query_one("#pot", Credits)
        pot.amount = 120
        await pilot.pause()
        assert str(pot.render()) == "Pot 120 ¢"
        assert pot.size.width == len("Pot 120 ¢")
        pot.amount = 7
        await pilot.pause()
        assert pot.size.width == len("Pot  7 ¢")
        health = app.query_one("#health", HealthPips)
        health.health = 0
        await pilot.pause()
        assert str(health.render()) == "✗ 0/5"
        assert health.size.width == len("✗ 0/5")


@pilot_test
async def test_kept_component_styles_follow_a_theme_change():
    """Dice and status widgets keep their component styles between repaints; a new theme
    must still recolour them."""
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        die = app.query_one("#cube-red", ChanceCube)
        pot = app.query_one("#pot", Credits)
        slate = app.query_one(Slate)
        before = die._style("die--red"), pot._style("credits--amount"), slate._style("slate--des")
        app.theme = "nord"
        await pilot.pause()
        after = die._style("die--red"), pot._style("credits--amount"), slate._style("slate--des")
        assert after[:2] == (
            component_style(die, "die--red"),
            component_style(pot, "credits--amount"),
        )
        assert after[2].rich_style.color == component_style(slate, "slate--des").color
        assert after[0].color != before[0].color and after[1].color != before[1].color
        assert after[2] != before[2]


@pilot_test
async def test_slate_shows_names_literally_and_marks_calls():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)):
        slate = app.query_one(Slate)
        lines = str(slate.render()).splitlines()
        assert lines[0].split() == ["Set", "1", "2", "3", "4", "5", "6", "7", "8", "Pts"]
        assert lines[1].split() == ["Cube", "V", "D", "V", "V", "D", "D", "V"]
        assert lines[2].split() == ["Alice", "V✓", "D✓", "V✓", "V✓", "D✓", "V✗", "V✓", "D…", "7"]
        assert lines[3].startswith("[b]Evil[/b] ")
        assert lines[3].split()[-2:] == ["V…", "7"]
        assert lines[4].startswith("Zed the Long-…")
        assert lines[4].split()[-2:] == ["·", "4"]
        assert all(len(line) <= 80 for line in lines)
        assert slate.size.width <= 80


class WholeSlate(Slate):
    """A slate drawn whole from its `render()`, as Textual draws a widget."""

    render_lines = Widget.render_lines
    render_line = Widget.render_line


class TwoSlatesApp(App[None]):
    CSS_PATH = str(STYLES)

    def compose(self) -> ComposeResult:
        yield Slate()
        yield WholeSlate()

    def on_mount(self) -> None:
        for slate in self.query(Slate):
            slate.update_slate(SLATE_NAMES, SLATE_REVEALS, SLATE_CALLS, SLATE_SCORES)


def slate_rows(slate: Slate) -> list[list[tuple[str, object]]]:
    """The slate's rows as Textual finishes them, each piece of text with its style."""
    rows = slate.render_lines(Region(0, 0, *slate.size))
    return [[(segment.text, segment.style) for segment in row] for row in rows]


@pilot_test
async def test_a_call_draws_one_row_of_the_slate_and_it_looks_as_drawn_whole():
    """A call changes one player's row of the slate: that row alone is drawn again and
    repainted (the slate drawn whole at every call and reveal was the dearest widget of
    a Val-Des table's frames after the log), and the slate looks as one drawn whole."""
    app = TwoSlatesApp()
    async with app.run_test(size=(80, 24)) as pilot:
        slate, whole = app.query(Slate)
        await pilot.pause()
        assert slate_rows(slate) == slate_rows(whole)
        drawn: list[int] = []
        plain = Visual.to_strips

        def counted(widget, visual, *args, **kwargs):
            strips = plain(widget, visual, *args, **kwargs)
            if widget is slate:
                drawn.append(len(strips))
            return strips

        finished: list[int] = []
        row_of = slate.render_line
        slate.render_line = lambda y: finished.append(y) or row_of(y)  # type: ignore[method-assign]
        Visual.to_strips = counted  # type: ignore[method-assign]
        try:
            calls = [dict(c) for c in SLATE_CALLS]
            calls[-1][2] = "blue"  # Zed calls in the set under way
            for one in (slate, whole):
                one.update_slate(SLATE_NAMES, SLATE_REVEALS, calls, SLATE_SCORES)
            await pilot.pause()
        finally:
            Visual.to_strips = plain  # type: ignore[method-assign]
        assert drawn == [1], "Zed's row alone drawn, not all six"
        assert sorted(set(finished)) == [4], "and finished, and sent"
        shown = slate_rows(slate)
        assert shown == slate_rows(whole)
        assert "D…" in "".join(text for text, _ in shown[4])


@pilot_test
async def test_slate_strips_control_characters_and_fits_many_sets():
    app = GalleryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        slate = app.query_one(Slate)
        names = [f"P{i}\x1b[31m" for i in range(8)]
        calls = [dict.fromkeys(range(8), "red") for _ in range(20)]
        slate.update_slate(names, ["blue"] * 20, calls, list(range(8)))
        await pilot.pause()
        text = str(slate.render())
        assert "\x1b" not in text and "P0[31m" in text
        lines = text.splitlines()
        assert len(lines) == 10
        assert "…" in lines[0] and lines[0].split()[-2:] == ["20", "Pts"]
        assert all(len(line) <= 80 for line in lines)


# --- the gallery -----------------------------------------------------------------------


def test_gallery_snapshot(snap_compare):
    assert snap_compare(GalleryApp(), terminal_size=(80, 24))


class KeysApp(App[None]):
    def compose(self) -> ComposeResult:
        yield KeptKey("n", "n", "Next", "next")


async def test_a_kept_drawing_removed_but_still_in_the_last_frame_draws_blank():
    """A table's footer keys are replaced while the table lies under a dialog, and the frame
    drawn behind the dialog can still hold a removed key: Textual has dropped its component
    styles by then, and drawing it raised KeyError ('footer-key--key') and closed the app."""
    app = KeysApp()
    async with app.run_test(size=(20, 3)) as pilot:
        key = app.query_one(KeptKey)
        assert "Next" in "".join(s.text for s in key.render_lines(Region(0, 0, 20, 1))[0])
        await key.remove()
        await pilot.pause()
        (row,) = key.render_lines(Region(0, 0, 20, 1))
        assert row.text.strip() == ""


# --- the footer: a focus move that takes keys away and gives them back ---------------------


class FieldAndList(App[None]):
    """The lobby's shape: a list, a text field (which takes the letter keys while it has
    the focus), letter bindings shown in the footer."""

    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("c", "noted('c')", "Campaign"),
        Binding("w", "noted('w')", "Watch"),
        Binding("m", "noted('m')", "Play alone"),
    ]

    def action_noted(self, key: str) -> None:
        self.notify(key)

    def compose(self) -> ComposeResult:
        yield OptionList("one", "two", id="list")
        yield Input(id="field")
        yield CantinaFooter()


def letter_keys(app: App[None]) -> dict[str, bool]:
    """The footer's letter keys, and whether each is lit."""
    footer = app.screen.query_one(CantinaFooter)
    return {key.key: not key.has_class("-disabled") for key in footer.query(FooterKey)}


async def test_a_tab_dims_the_keys_a_field_takes_in_the_frame_that_moves_the_focus():
    """The keys are dimmed (and lit again) as the focus moves, not after the next frame
    as Textual's footer does: a Tab drew a frame for the focus and another for the
    footer."""
    app = FieldAndList()
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause(0.1)
        keys = list(app.screen.query(FooterKey))
        assert letter_keys(app) == {"c": True, "w": True, "m": True}
        app.screen.focus_next()  # to the field: nothing drawn in between
        assert isinstance(app.focused, Input)
        assert letter_keys(app) == {"c": False, "w": False, "m": False}
        app.screen.focus_next()  # back to the list
        assert letter_keys(app) == {"c": True, "w": True, "m": True}
        await pilot.pause(0.1)
        assert list(app.screen.query(FooterKey)) == keys, "the same keys, dimmed in place"


async def test_a_footer_key_dimmed_and_lit_again_is_not_drawn_anew():
    """Each of the footer's keys keeps its lit and dimmed drawings: in the lobby every Tab
    dims or lights five keys, and drawing one anew cost more than a die."""
    app = FieldAndList()
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause(0.1)
        drawn: list[str] = []
        for key in app.screen.query(FooterKey):
            key.render = functools.partial(
                lambda key, render: drawn.append(key.key) or render(), key, key.render
            )
        for _ in range(2):  # each key drawn dimmed, and lit again
            await pilot.press("tab")
            await pilot.pause(0.1)
        assert letter_keys(app) == {"c": True, "w": True, "m": True}
        drawn.clear()
        for _ in range(6):
            await pilot.press("tab")
            await pilot.pause(0.1)
        assert letter_keys(app) == {"c": True, "w": True, "m": True}
        assert drawn == [], "shown from the drawings kept"
