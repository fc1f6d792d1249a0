"""The table's small widgets (screens/table_widgets.py)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Region

from screens.table_widgets import Line


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
