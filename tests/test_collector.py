"""What a host's frames leave for Python's collector: the lines Textual draws (strips) are
freed as they are dropped, not left as cyclic garbage (a young collection every half
second at 24 sessions playing; benchmarks/bench_ssh.py --playing shows the pauses)."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.strip import Strip
from textual.widgets import Static

from screens.textual_compat import TEXTUAL_STRIP_DIVIDE, strips_kept_out_of_cycles


@contextmanager
def cyclic_garbage() -> Iterator[Counter[str]]:
    """The cyclic garbage made inside the block, by type name (the collector keeps what
    it finds instead of freeing it, then lets it go)."""
    found: Counter[str] = Counter()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.update(type(thing).__name__ for thing in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()


def line() -> Strip:
    return Strip([Segment("hello ", Style(bold=True)), Segment("world")])


def test_a_strip_divides_as_textuals_own_divide() -> None:
    strips_kept_out_of_cycles()
    for cuts in ([11], [3, 11], [20], [11, 20], [0, 11], [], [5], [11, 11], [2, 5, 11]):
        ours = line().divide(cuts)
        textuals = TEXTUAL_STRIP_DIVIDE(line(), cuts)
        assert [list(s) for s in ours] == [list(s) for s in textuals], cuts
        assert [s.cell_length for s in ours] == [s.cell_length for s in textuals], cuts
    whole = line()
    assert whole.divide([11]) == [whole] and whole.divide([11])[0] is whole


def test_a_strip_divided_whole_is_freed_as_it_is_dropped() -> None:
    """Textual's divide kept `[self]` in the strip's own cache: a cycle, found only by the
    collector."""
    strips_kept_out_of_cycles()
    with cyclic_garbage() as found:
        for _ in range(100):
            line().divide([11])
    assert found["Strip"] == 0, found


class Panels(App[None]):
    """Widgets side by side, whose lines the compositor divides at every frame."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            for n in range(4):
                yield Static(f"panel {n}\n" * 10, id=f"p{n}")


async def test_the_frames_of_an_app_leave_no_strips_for_the_collector() -> None:
    """An app redrawn a few times (as a host's session is at each move) leaves none of
    its drawn lines as cyclic garbage (an SSH session's app turns this on as it starts)."""
    strips_kept_out_of_cycles()
    app = Panels()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        with cyclic_garbage() as found:
            for turn in range(6):
                for n in range(4):
                    app.query_one(f"#p{n}", Static).update(f"panel {n} turn {turn}\n" * 10)
                await pilot.pause()
    assert found["Strip"] == 0, found
