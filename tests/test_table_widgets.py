"""The table's small widgets (screens/table_widgets.py)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Region

from screens.table_widgets import Line, NarrationLog


class LineApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Line(id="line")


def bold_cells(app: LineApp) -> list[bool]:
    """Whether each cell of the line, as it draws itself, is bold."""
    line = app.query_one(Line)
    (row,) = line.render_lines(Region(0, 0, line.size.width, 1))
    return [bool(segment.style and segment.style.bold) for segment in row for _ in segment.text]


async def test_a_line_restyled_with_the_same_words_is_drawn_again():
    """`Content` compares its text only: "Waiting for Bo" with Bo in bold equals it
    without. A line set to the same words in another style showed the old style."""
    app = LineApp()
    async with app.run_test(size=(20, 3)) as pilot:
        line = app.query_one(Line)
        line.text = Content.assemble("Waiting for ", ("Bo", "bold"))
        await pilot.pause()
        assert bold_cells(app)[12:14] == [True, True]
        line.text = Content("Waiting for Bo")
        await pilot.pause()
        assert line.text.spans == []
        assert bold_cells(app)[12:14] == [False, False]


async def test_a_line_set_to_what_it_shows_asks_for_no_repaint():
    app = LineApp()
    async with app.run_test(size=(20, 3)) as pilot:
        line = app.query_one(Line)
        line.text = Content.assemble("Waiting for ", ("Bo", "bold"))
        await pilot.pause()
        asked: list[bool] = []
        line.refresh = lambda *a, **k: asked.append(True) or line  # type: ignore[method-assign]
        line.text = Content.assemble("Waiting for ", ("Bo", "bold"))
        assert asked == []
        line.text = Content.assemble("Waiting for ", ("Bo", "italic"))
        assert asked == [True]


class LogApp(App[None]):
    CSS = "NarrationLog { border-left: vkey $primary; padding: 0 1; height: 6; width: 30; }"

    def compose(self) -> ComposeResult:
        yield NarrationLog()


def drawn(log: NarrationLog) -> list[list[tuple[str, object]]]:
    """The log's rows as it draws them: each piece of text with its style."""
    rows = log.render_lines(Region(0, 0, log.size.width, log.size.height))
    return [[(segment.text, segment.style) for segment in row] for row in rows]


async def test_a_full_log_finishes_only_its_new_rows_and_looks_as_finished_anew():
    """New lines at the foot of a full log move the rows above them up: Textual finishes
    those again (border, padding, background) at every repaint unless given them back,
    some 10% of a host's work with tables playing. Only the new rows are finished, and
    the log looks as one finished anew."""
    app = LogApp()
    async with app.run_test(size=(30, 8)) as pilot:
        log = app.query_one(NarrationLog)
        log.write_lines([f"line {n}" for n in range(10)])
        await pilot.pause()
        finished: list[int] = []
        plain = log.render_line
        log.render_line = lambda y: finished.append(y) or plain(y)  # type: ignore[method-assign]
        log.write_lines(["a new line", "and another one that wraps over two rows of it"])
        await pilot.pause()
        assert sorted(set(finished)) == [3, 4, 5], "the three new rows, not all six"
        shown = drawn(log)
        assert "".join(text for text, _ in shown[0]).strip().endswith("line 7")
        log.refresh()  # every row finished anew
        assert drawn(log) == shown
