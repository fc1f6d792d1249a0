"""The options of a pending decision, as one widget drawn in one go.

A row of Textual `Button`s cost more than anything else in the frame after a move: six
widgets to draw, and disabling them while an AI thinks restyled each one (CSS applied
again, focus moved), before the frame and again when it was drawn. Here the options are
cells of one grid: going idle, relabelling or moving the cursor repaints this widget and
nothing else, and the height changes (a new layout) only when the number of rows of text
does. Keys 1-9 choose from the screen; this widget adds the mouse (a click on a cell) and,
when it has focus, the arrow keys and Enter.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Offset, Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from screens.drawing import wrap_plain

COLUMNS = 3
GUTTER = 1
"""Blank cells between two columns."""


@lru_cache(maxsize=16)
def _widths(width: int) -> tuple[int, ...]:
    """Column widths filling `width` with gutters between, as a grid of 1fr columns."""
    usable = max(width - GUTTER * (COLUMNS - 1), COLUMNS)
    base, extra = divmod(usable, COLUMNS)
    return tuple(base + (1 if n < extra else 0) for n in range(COLUMNS))


@lru_cache(maxsize=64)
def _wrapped(labels: tuple[str, ...], width: int) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Rows of cells, each cell its numbered label's lines, with a cell of padding each
    side. Kept: the same options come back turn after turn (and are asked for both to
    size the grid and to draw it)."""
    widths = _widths(width)
    return tuple(
        tuple(
            tuple(wrap_plain(f"{start + column + 1} {label}", max(widths[column] - 2, 1)))
            for column, label in enumerate(labels[start : start + COLUMNS])
        )
        for start in range(0, len(labels), COLUMNS)
    )


class OptionGrid(Widget, can_focus=True):
    """Numbered option cells, `COLUMNS` to a row, each label wrapped and centred in its cell.

    While nobody here is choosing (`show([])`), the cells go blank but keep their rows, so
    the bar keeps its height and the next frame is a repaint, not a new layout."""

    DEFAULT_CSS = """
    OptionGrid {
        height: auto;
        & > .option-grid--option {
            background: $surface;
            color: $button-foreground;
            text-style: bold;
        }
        & > .option-grid--hover {
            background: $surface-lighten-1;
            color: $button-foreground;
            text-style: bold;
        }
        & > .option-grid--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "option-grid--option",
        "option-grid--hover",
        "option-grid--cursor",
    }

    BINDINGS = [
        Binding("left", "move(-1)", "Previous", show=False, id="options.previous"),
        Binding("right", "move(1)", "Next", show=False, id="options.next"),
        Binding("up", f"move({-COLUMNS})", "Row above", show=False, id="options.up"),
        Binding("down", f"move({COLUMNS})", "Row below", show=False, id="options.down"),
        Binding("enter", "choose", "Choose", show=False, id="options.choose"),
    ]

    cursor: reactive[int] = reactive(0, layout=False, init=False)
    """The option Enter chooses; drawn only while the grid has focus."""
    hover: reactive[int | None] = reactive(None, layout=False, init=False)
    """The option under the mouse."""

    class Chosen(Message):
        """A person chose option `index` with the mouse or Enter."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.labels: tuple[str, ...] = ()
        """The options on show, numbered from 1 on screen; empty while idle."""
        self._shape: tuple[str, ...] = ()
        """The labels the rows were sized for: kept while idle, so the height stays."""
        self._cells: list[tuple[int, Region]] = []
        """Each option's cell in content coordinates, from the last drawing."""
        self._drawn: tuple[object, ...] | None = None
        self._rows: list[Strip] = []

    # --- what is shown ------------------------------------------------------------------

    def show(self, labels: Sequence[str]) -> None:
        """Offer `labels`, or with none go idle: blank cells, the same rows."""
        labels = tuple(labels)
        if labels == self.labels:
            return
        self.labels = labels
        if labels:
            if len(labels) != len(self._shape) or self.cursor >= len(labels):
                self.cursor = 0
            old, self._shape = self._shape, labels
            width = self.content_size.width
            if width and self._height(old, width) != self._height(labels, width):
                self.refresh(layout=True)
                return
        self.refresh()

    @property
    def idle(self) -> bool:
        return not self.labels

    def cell_region(self, index: int) -> Region:
        """Where option `index` is drawn, relative to the widget (which has no padding),
        as a click's offset would be."""
        for n, region in self._cells:
            if n == index:
                return region
        raise IndexError(index)

    # --- drawing ------------------------------------------------------------------------

    @staticmethod
    def _height(labels: tuple[str, ...], width: int) -> int:
        return sum(max(len(cell) for cell in row) for row in _wrapped(labels, width)) or 1

    def get_content_height(self, container, viewport, width: int) -> int:
        return self._height(self._shape, width)

    def render_lines(self, crop: Region) -> list[Strip]:
        width, height = self.content_size
        focused = self.has_focus
        key = (self.labels, self._shape, width, height, self.cursor, self.hover, focused)
        if key != self._drawn:
            self._drawn = key
            self._rows = self._draw(width, height, focused)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y < len(self._rows):
            return self._rows[y]
        return Strip.blank(self.content_size.width, self.rich_style)

    def _draw(self, width: int, height: int, focused: bool) -> list[Strip]:
        base = self.rich_style
        widths = _widths(width)
        lines: list[list[Segment]] = []
        self._cells = []
        for row_number, row in enumerate(_wrapped(self._shape, width)):
            rows = max(len(cell) for cell in row)
            top = len(lines)
            block: list[list[Segment]] = [[] for _ in range(rows)]
            x = 0
            for column, cell in enumerate(row):
                index = row_number * COLUMNS + column
                cell_width = widths[column]
                if column:
                    for line in block:
                        line.append(Segment(" " * GUTTER, base))
                    x += GUTTER
                self._cells.append((index, Region(x, top, cell_width, rows)))
                x += cell_width
                if self.idle:
                    for line in block:
                        line.append(Segment(" " * cell_width, base))
                    continue
                style = base + self._cell_style(index, focused)
                for y, line in enumerate(block):
                    text = cell[y] if y < len(cell) else ""
                    left = (cell_width - cell_len(text)) // 2
                    line.append(Segment(f"{' ' * left}{text}", style))
                    line.append(Segment(" " * (cell_width - left - cell_len(text)), style))
            lines.extend(block)
        strips = [Strip(line).adjust_cell_length(width, base) for line in lines[:height]]
        while len(strips) < height:
            strips.append(Strip.blank(width, base))
        return strips

    def _cell_style(self, index: int, focused: bool) -> Style:
        if focused and index == self.cursor:
            return self.get_component_rich_style("option-grid--cursor")
        if index == self.hover:
            return self.get_component_rich_style("option-grid--hover")
        return self.get_component_rich_style("option-grid--option")

    # --- mouse and keys -----------------------------------------------------------------

    def _index_at(self, offset: Offset | None) -> int | None:
        if offset is None or self.idle:
            return None
        for index, region in self._cells:
            if index < len(self.labels) and offset in region:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hover = self._index_at(event.get_content_offset(self))

    def on_leave(self, event: events.Leave) -> None:
        self.hover = None

    def on_click(self, event: events.Click) -> None:
        index = self._index_at(event.get_content_offset(self))
        if index is not None:
            event.stop()
            self.post_message(self.Chosen(index))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_move(self, step: int) -> None:
        if self.labels:
            self.cursor = min(max(self.cursor + step, 0), len(self.labels) - 1)

    def action_choose(self) -> None:
        if self.labels:
            self.post_message(self.Chosen(self.cursor))
