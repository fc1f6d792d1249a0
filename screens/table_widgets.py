"""The parts of a table screen: a line of text, the narration, the decision bar, the seats.

Each repaints without asking the screen for a new layout where it can: after every move
most of them change, and a layout of the whole screen costs more than their drawing.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content, Span
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.widget import Widget

from screens.drawing import KeptDrawing, plain_rows
from screens.options import OptionGrid
from screens.textual_compat import finished_rows, keep_finished_rows

STANDING_OUT = VisualStyle(reverse=True, bold=True)
"""How a line that stands out is drawn (it reads without colour)."""


def looks(content: Content) -> tuple[str, tuple[Span, ...]]:
    """What `content` shows: its text and its styles. (`Content`'s own equality and hash
    see the text only, so a line restyled with the same words would compare equal.)"""
    return content.plain, tuple(content.spans)


class Line(KeptDrawing, Widget):
    """One line of text that repaints without asking for a new layout (unlike `Static`),
    so the status, prompt and odds lines cost a redraw of themselves and nothing more;
    lines it has shown before (a prompt, a seat's name and role) are not drawn again.

    `text` repaints when what it shows changes, its styles included (a reactive would
    compare the text alone: "Waiting for **Bo**" and "Waiting for Bo" are equal
    `Content`)."""

    DEFAULT_CSS = "Line { height: 1; }"

    LAYOUT: ClassVar[bool] = False
    """Whether a new text asks for a new layout (a line that may grow a row does)."""

    def __init__(self, text: Content | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._text = Content("") if text is None else text
        self._stands_out = False

    @property
    def stands_out(self) -> bool:
        """Whether the line is drawn reversed and bold, whatever it says (the prompt
        when a person's turn comes round). Drawn, not a CSS class: a class restyles
        the line and its parents, which cost more than the frame it shows in."""
        return self._stands_out

    @stands_out.setter
    def stands_out(self, on: bool) -> None:
        if on != self._stands_out:
            self._stands_out = on
            self.refresh()

    def drawing_style(self) -> VisualStyle:
        style = super().drawing_style()
        return style + STANDING_OUT if self._stands_out else style

    @property
    def text(self) -> Content:
        return self._text

    @text.setter
    def text(self, text: Content) -> None:
        if looks(text) != looks(self._text):
            self._text = text
            self.refresh(layout=self.LAYOUT)

    def render(self) -> Content:
        return self._text

    def drawing_key(self) -> Hashable:
        return looks(self._text), self._stands_out


class OddsLine(Line):
    """The odds of the options on offer: a line that grows a row when its text needs
    one (at 80 columns, nine stakes' odds take two). It changes only when the odds are
    asked for or the options change, so its new layout costs nothing per move."""

    DEFAULT_CSS = "OddsLine { height: auto; }"

    LAYOUT = True


class NarrationLog(Widget):
    """The table's running commentary: the newest lines, wrapped, filling the panel.

    It draws only the tail that fits, and new lines repaint it without a new layout (a
    scrolling log resizes its virtual canvas on every line, which lays out the whole
    screen); the whole story is one key away in the history view. Each line is wrapped
    and drawn once and kept while it can still be on show (until the width or the styles
    change), so a new line costs the drawing of that line alone, not of the whole panel,
    and a long game does not keep the drawing of every line it ever had.

    The rows on show are finished by Textual (the border, the padding, the background),
    row by row, at every repaint. A new line moves the rows above it up: each of those is
    given back as finished before, where it now is (`keep_finished_rows`), and only the
    new rows are finished (the log was some 10% of a host's work with tables playing)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[str] = []
        self._drawn: dict[int, list[Strip]] = {}
        """The rows of recent lines as drawn at `_drawn_width`, by line number."""
        self._drawn_width = -1
        self._rows: list[Strip] = []
        """The rows on show, from the last `render_lines`."""
        self._finished: tuple[list[Strip], dict[int, Strip]] | None = None
        """The rows on show before new lines came, and each as Textual finished it, by
        row: kept from the repaint the new lines asked for until the next drawing."""

    def write(self, line: str) -> None:
        self.write_lines([line])

    def clear(self) -> None:
        """A new game: a new story."""
        self.lines = []
        self._drawn.clear()
        self._finished = None
        self.refresh()

    def write_lines(self, lines: Sequence[str]) -> None:
        """Several lines with one repaint."""
        if lines:
            self.lines.extend(lines)
            if self._finished is None:  # rows finished since the last drawing: kept
                self._finished = self._rows, finished_rows(self)
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()  # a new theme or class: draw every line again
        self._finished = None  # and finish every row again

    def _keep_finished(self, rows: list[Strip]) -> None:
        """Give Textual back the rows finished before that are still on show, each where
        it now is (a row is the same strip while its line is on show at the same width);
        only where the finish does not depend on the row (no border or padding above or
        below)."""
        finished, self._finished = self._finished, None
        gutter = self.styles.gutter
        if finished is None or gutter.top or gutter.bottom:
            return
        before, done = finished
        was = {id(row): y for y, row in enumerate(before)}
        kept = {}
        for y, row in enumerate(rows):
            old = was.get(id(row))
            if old is not None and old in done:
                kept[y] = done[old]
        keep_finished_rows(self, kept)

    def _tail(self, width: int, height: int) -> list[Strip]:
        """The last `height` rows of the log at `width`."""
        if width != self._drawn_width:
            self._drawn.clear()
            self._drawn_width = width
        if height <= 0:
            return []
        style = self.visual_style.rich_style
        rows: list[Strip] = []
        number = len(self.lines)
        while number > 0 and len(rows) < height:  # every line is at least one row
            number -= 1
            drawn = self._drawn.get(number)
            if drawn is None:
                drawn = plain_rows(self.lines[number], width, style)
                self._drawn[number] = drawn
            rows[:0] = drawn
        for old in [n for n in self._drawn if n < number]:  # scrolled off: not needed again
            del self._drawn[old]
        return rows[-height:]

    def render_lines(self, crop: Region) -> list[Strip]:
        self._rows = self._tail(self.size.width, self.size.height)
        self._keep_finished(self._rows)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y < len(self._rows):
            return self._rows[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)


class DecisionBar(Vertical):
    """The prompt, the options (`OptionGrid`) and the odds line under them when asked for.

    While nobody here is choosing (an AI thinks, another seat decides) the options go
    blank but keep their rows: the bar keeps its height, so the frame after a person's
    move is a repaint, not a new layout of the screen."""

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def compose(self) -> ComposeResult:
        self._prompt = Line(id="prompt")
        self._odds = OddsLine(id="odds")
        self._options = OptionGrid(id="options")
        yield self._prompt
        yield self._options
        yield self._odds

    def show(self, prompt: Content, labels: Sequence[str] = (), odds: str = "") -> None:
        """Ask with `labels` as the options, or, with none, only say `prompt` (the options
        on show go blank)."""
        self._prompt.text = prompt
        self._options.show(labels)
        self.show_odds(odds)

    def cue(self, on: bool) -> None:
        """The prompt stands out (a person's turn has come round), or no longer. The bar
        carries the class `-cue` meanwhile, for anyone styling it; the look is drawn."""
        self.set_class(on, "-cue", update=False)
        self._prompt.stands_out = on

    def offered(self) -> list[str]:
        """The labels of the options on show, numbered as on screen (none while nobody
        here is choosing)."""
        return [f"{n} {label}" for n, label in enumerate(self._options.labels, start=1)]

    def show_odds(self, odds: str) -> None:
        """The odds of the options on offer, in the game's words ("" hides them)."""
        self._odds.text = Content(odds)

    def on_option_grid_chosen(self, event: OptionGrid.Chosen) -> None:
        event.stop()
        self.post_message(self.Chosen(event.index))


class SeatList(Widget):
    """The seats as one widget: a line each, name (never markup), role and figures."""

    rows: reactive[tuple[tuple[str, str, str, bool], ...]] = reactive(())

    def watch_rows(self, old: tuple, new: tuple) -> None:
        if len(old) != len(new):  # only the number of rows changes the height
            self.refresh(layout=True)

    def render(self) -> Content:
        lines = []
        for name, role, detail, current in self.rows:
            marker = "▶ " if current else "  "
            lines.append(
                Content.assemble(
                    marker,
                    (f"{name:<16}", "bold" if current else ""),
                    f" {role:<12} ",
                    detail,
                )
            )
        return Content("\n").join(lines)

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(len(self.rows), 1)
