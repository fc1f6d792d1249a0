"""What a hosted session keeps in memory, and leaves for the collector.

Every SSH session is a Textual app in the host's one process, and the garbage of all of
them waits for the same full collection, so what one app makes and drops matters as much
as what it keeps: a seated session cost 11.4 MiB, half of it garbage of this kind
(benchmarks/bench_ssh.py --at-table). Each test below is one of the savings: strips that
make their caches only when used, widgets restyled without new component nodes, and
footers that keep their keys while the bindings stay the same, and a setup screen that
makes a seat's row only when the seat count reaches it.
"""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.cache import FIFOCache
from textual.color import Color
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.strip import Strip
from textual.widgets import Footer, Input, OptionList, Select, Static

from cantina.app import CantinaApp
from cantina.ssh.styles import SharedStylesheet
from screens.menu import MenuScreen
from screens.setup import SetupScreen
from screens.textual_compat import FooterKey, lazy_strip_caches

SIZE = (80, 24)


def live(kind: type) -> int:
    """How many objects of exactly this type are alive (after a collection)."""
    gc.collect()
    return sum(type(thing) is kind for thing in gc.get_objects())


def test_strips_make_their_caches_only_when_used() -> None:
    """Textual gives every strip seven caches as it is made; a session holds about a
    thousand strips, most never cropped or restyled again."""
    lazy_strip_caches()
    lazy_strip_caches()  # the host may ask again: nothing changes
    before = live(FIFOCache)
    strips = [Strip([Segment(f"line {n} of the log")]) for n in range(300)]
    assert live(FIFOCache) == before, "no caches until a strip is used"

    cropped = strips[0].crop(2, 8)
    assert cropped.text == "ne 0 o" and cropped.cell_length == 6
    assert strips[0].crop(2, 8) is cropped, "the crop is cached, as before"
    assert live(FIFOCache) == before + 1, "one cache, on the one strip that was cropped"
    assert [s.text for s in strips[1].divide([4, 8])] == ["line", " 1 o"]
    assert strips[2].extend_cell_length(20).cell_length == 20


class Restyled(App[None]):
    """An option list (a widget with component classes) restyled again and again."""

    CSS = """
    OptionList > .option-list--option-highlighted { color: red; }
    OptionList.warm > .option-list--option-highlighted { color: blue; }
    """

    def __init__(self, sheet: type[Stylesheet]) -> None:
        super().__init__()
        if sheet is not Stylesheet:  # as HostedApp does
            self.stylesheet = sheet(variables=self.get_css_variables())

    def compose(self) -> ComposeResult:
        yield OptionList("one", "two", "three")


@pytest.mark.parametrize("sheet", [SharedStylesheet, Stylesheet], ids=["host", "textual"])
async def test_restyling_a_widget_keeps_its_component_nodes(sheet: type[Stylesheet]) -> None:
    """Textual makes a new node (about 6.5 KiB, in cycles only a full collection frees)
    for each component class of a widget every time it is restyled; the host's
    stylesheet restyles the ones it has, and makes new ones at half the size. Textual's
    own is here to show the difference."""
    app = Restyled(sheet)
    async with app.run_test(size=SIZE) as pilot:
        options = app.query_one(OptionList)
        await pilot.pause()
        kept = options.get_component_styles("option-list--option-highlighted").node
        nodes = live(DOMNode)
        gc.disable()  # what the restyles leave, before any collection frees it
        try:
            for _ in range(10):
                options.toggle_class("cold")
                await pilot.pause()
            left = sum(type(thing) is DOMNode for thing in gc.get_objects())
        finally:
            gc.enable()
        same = options.get_component_styles("option-list--option-highlighted").node is kept
        if sheet is Stylesheet:
            assert not same and left >= nodes + 10 * len(OptionList.COMPONENT_CLASSES)
            return
        assert same and left == nodes
        # The parts a component node never uses (its message signal, children, timers,
        # bindings) are one set for all of them: about half of each node.
        other = options.get_component_styles("option-list--option").node
        assert other is not kept and other.message_signal is kept.message_signal
        assert kept.message_signal is not options.message_signal

        # A restyle that changes a component's rules still shows: new colour, redrawn.
        assert options.get_component_rich_style("option-list--option-highlighted").color
        before = options.get_component_rich_style("option-list--option-highlighted").color
        options.add_class("warm")
        await pilot.pause()
        styles = options.get_component_styles("option-list--option-highlighted")
        assert styles.node is kept and styles.color == Color.parse("blue")
        after = options.get_component_rich_style("option-list--option-highlighted").color
        assert after != before and after is not None and after.triplet == (0, 0, 255)


async def test_footer_keeps_its_keys_while_the_bindings_stay_the_same() -> None:
    """Textual's footer made every key anew at each focus change and screen push; now it
    does only when the keys would differ, and then it does."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        footer = app.screen.query_one(Footer)
        keys = list(footer.query(FooterKey))
        assert {key.action for key in keys} >= {"new_campaign", "resume", "rules"}
        for _ in range(6):
            await pilot.press("tab")
        await pilot.press("s")  # the settings, and back to the menu
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query_one(Footer) is footer
        assert list(footer.query(FooterKey)) == keys, "the same keys, not new ones"

        app.campaigns_allowed = False  # the menu's check_action hides two keys
        app.screen.refresh_bindings()
        for _ in range(20):
            await pilot.pause()
            actions = [key.action for key in footer.query(FooterKey)]
            if "resume" not in actions:
                break
        assert "new_campaign" not in actions and "rules" in actions


async def test_setup_makes_a_seat_row_when_the_count_first_reaches_it() -> None:
    """Val-Des seats up to eight, and the setup opened with all eight rows made, four of
    them hidden: a dozen widgets each, in every session that sets a table (and garbage
    once it starts). Now a row is made when the seat count first reaches it, named and
    chosen as it would have been."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")  # Val-Des, from the menu
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        assert len(setup.query(".seat-row")) == 4
        about = str(setup.query_one("#about", Static).content)

        setup.query_one("#seat-count", Select).value = 6
        for _ in range(20):
            await pilot.pause()
            if len(setup.query("#kind-5 OptionList")):
                break
        rows = list(setup.query(".seat-row"))
        assert len(rows) == 6 and all(row.display for row in rows)
        names = [setup.query_one(f"#name-{seat}", Input).value for seat in range(6)]
        assert names == ["Player 1", "Expert", "Bold", "Cautious", "Reckless", "Superstitious"]
        assert str(setup.query_one("#about", Static).content) == about, "nothing was chosen"

        setup.query_one("#kind-5", Select).value = "Loyal"  # a new row's list is followed
        await pilot.pause()
        assert setup.query_one("#name-5", Input).value == "Loyal"
        assert str(setup.query_one("#about", Static).content).startswith("Loyal:")

        setup.query_one("#seat-count", Select).value = 3
        await pilot.pause()
        assert [row.display for row in setup.query(".seat-row")] == [True] * 3 + [False] * 3
        assert [seat.name for seat in setup.table().seats] == ["Player 1", "Expert", "Bold"]
