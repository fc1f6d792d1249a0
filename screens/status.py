"""Status widgets: health pips, a credits counter and the Val-Des score slate.

Each is one widget drawing itself in `render()`. Everything reads without colour (NO_COLOR):
health shows its number beside the hearts, the slate marks calls with ✓/✗ and V/D letters.
Player names are untrusted text: they go through `safe_text`, never through markup.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content, Span
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip
from textual.style import Style as ContentStyle
from textual.timer import Timer
from textual.visual import Visual, visualize
from textual.widget import Widget

from cantina.text import clean_text
from screens.dice import animation_speed
from screens.drawing import KeptDrawing, KeptStyles, component_style

FLASH_SECONDS = 0.6
"""How long `Credits` keeps its `-changed` class at animation speed 1."""


def safe_text(value: object, style: Style | str = "") -> Text:
    """`value` as plain `Text`: markup is never interpreted and control and format
    characters (ESC, newlines, bidi overrides...; `clean_text`) are dropped, so a name
    cannot restyle or break the screen, even one read from a hand-edited save."""
    return Text(clean_text(str(value)), style=style, end="")


class HealthPips(KeptDrawing, Widget):
    """Health as hearts and a number against the starting health: `♥♥♥♡♡ 3/5`; at 0,
    `✗ 0/5`; above it (a rematch bonus), the extra after a plus: `♥♥♥♥♥+♥ 6/5`."""

    DEFAULT_CSS = """
    HealthPips {
        width: auto;
        height: 1;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "healthpips--full",
        "healthpips--empty",
        "healthpips--out",
        "healthpips--number",
    }

    # A new figure repaints; only a new width (more hearts, more digits) asks the screen
    # for a layout, which costs far more than the repaint.
    health: reactive[int] = reactive(0, init=False)
    maximum: reactive[int] = reactive(5, init=False)

    def __init__(self, health: int = 0, maximum: int = 5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_reactive(HealthPips.health, health)
        self.set_reactive(HealthPips.maximum, maximum)

    @staticmethod
    def _width(health: int, maximum: int) -> int:
        maximum = max(maximum, 0)
        bonus = max(health - maximum, 0)
        hearts = 1 if health <= 0 else maximum + (1 + bonus if bonus else 0)
        return hearts + 1 + len(f"{health}/{maximum}")

    def watch_health(self, old: int, new: int) -> None:
        if self._width(old, self.maximum) != self._width(new, self.maximum):
            self.refresh(layout=True)

    def watch_maximum(self, old: int, new: int) -> None:
        if self._width(self.health, old) != self._width(self.health, new):
            self.refresh(layout=True)

    def drawing_key(self) -> tuple[int, int]:
        return self.health, self.maximum

    def render(self) -> Text:
        style = self._style
        maximum = max(self.maximum, 0)
        number = Text(f"{self.health}/{maximum}", style=style("healthpips--number"))
        if self.health <= 0:
            return Text.assemble(("✗", style("healthpips--out")), " ", number)
        full = min(self.health, maximum)
        bonus = self.health - full
        return Text.assemble(
            ("♥" * full, style("healthpips--full")),
            ("♡" * (maximum - full), style("healthpips--empty")),
            ("+" + "♥" * bonus if bonus else "", style("healthpips--full")),
            " ",
            number,
        )


class Credits(KeptStyles, Widget):
    """A labelled amount: `Credits("Pot")` renders `Pot  8 ¢`.

    When `amount` changes the widget carries the CSS class `-changed` for about 0.6 s (times
    the animation speed; not at all with animation off), so styles can flash it.
    """

    DEFAULT_CSS = """
    Credits {
        width: auto;
        height: 1;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"credits--label", "credits--amount"}

    amount: reactive[int] = reactive(0, init=False)
    """A new amount repaints; only a new width (a third digit) asks for a layout."""

    def __init__(self, label: str, amount: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label = label
        self._flash: Timer | None = None
        self.set_reactive(Credits.amount, amount)

    def render(self) -> Text:
        label = safe_text(self.label, self._style("credits--label"))
        amount = self._style("credits--amount")
        return Text.assemble(label, " ", (f"{self.amount:>2} ¢", amount))

    def watch_amount(self, old: int, new: int) -> None:
        if not self.is_mounted:
            return
        if len(f"{old:>2}") != len(f"{new:>2}"):
            self.refresh(layout=True)
        speed = animation_speed(self)
        if speed <= 0:
            return
        if self._flash is not None:
            self._flash.stop()
        self.add_class("-changed")
        self._flash = self.set_timer(FLASH_SECONDS * speed, self._end_flash, name="credits-flash")

    def _end_flash(self) -> None:
        self._flash = None
        self.remove_class("-changed")


NAME_WIDTH = 14
"""Names longer than this are cut with an ellipsis on the slate."""
MAX_SETS_SHOWN = 16
"""Past this many sets the slate shows the latest ones after a `…` column."""

_LETTERS: dict[str, str] = {"red": "V", "val": "V", "v": "V", "blue": "D", "des": "D", "d": "D"}


def call_letter(colour: str) -> str:
    """`V` for a red (Val) call or cube, `D` for blue (Des); `?` for anything else."""
    return _LETTERS.get(str(colour).lower(), "?")


class Slate(Widget):
    """The Val-Des score slate: one row per player, one column per set, then the total.

    ```
    Set        1  2  3   Pts
    Cube       V  D  V
    Alice     V✓ V✗ D✗     1
    ```

    A player's cell is the call's letter with ✓ (right) or ✗ (wrong); `V…` while the set's
    cube is still under the cup; `·` where the player made no call (a tie-break set it sat
    out).
    """

    DEFAULT_CSS = """
    Slate {
        width: 100%;
        height: auto;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "slate--header",
        "slate--val",
        "slate--des",
        "slate--right",
        "slate--wrong",
        "slate--pending",
        "slate--name",
        "slate--total",
        "slate--leader",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._names: list[str] = []
        self._reveals: list[str] = []
        self._calls: list[dict[int, str]] = []
        self._scores: list[int] = []
        self._styles: dict[str, ContentStyle] = {}
        self._drawn_rows: dict[tuple[Hashable, int, int], Strip] = {}
        """Each row as drawn, by what it shows (text and styles), the width and where."""
        self._rows: list[Strip] = []
        """The rows on show, from the last `render_lines`."""
        self._lines: list[Content] | None = None
        """What each row shows, once made for the state and look (see `_shown_lines`)."""

    def update_slate(
        self,
        names: Sequence[str],
        reveals: Sequence[str],
        calls_by_set: Sequence[Mapping[int, str]],
        scores: Sequence[int],
    ) -> None:
        """Show the game so far.

        `names[i]` and `scores[i]` are player i's; `reveals[k]` is set k+1's cube ("red" or
        "blue"); `calls_by_set[k][i]` is player i's call in set k+1 ("red"/"blue"), missing
        when the player made none. A set with calls but no reveal yet is the one in play.
        """
        state = (
            list(names),
            list(reveals),
            [dict(calls) for calls in calls_by_set],
            list(scores),
        )
        if state == (self._names, self._reveals, self._calls, self._scores):
            return  # most calls change nothing shown: no repaint
        rows = len(names) != len(self._names)
        self._names, self._reveals, self._calls, self._scores = state
        before, self._lines = self._lines, None
        width = self.size.width
        if rows or before is None or not width or not self.is_mounted:
            # The slate fills its container's width, so a new set's column is a repaint;
            # only a new row changes its height and needs a new layout of the screen.
            self.refresh(layout=rows)
            return
        lines = self._shown_lines()
        if len(lines) != len(before):
            self.refresh()
            return
        changed = [
            Region(0, y, width, 1)
            for y, (old, new) in enumerate(zip(before, lines, strict=True))
            if (old.plain, old.spans) != (new.plain, new.spans)
        ]
        if changed:  # a call changes its caller's row: that row alone is drawn again
            self.refresh(*changed)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = {}  # the theme or CSS changed: look the component styles up again
        self._drawn_rows = {}  # and draw every row again
        self._lines = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """The slate drawn row by row, each row kept while it shows the same: a call
        changes one player's row, and drawing the whole slate again (every row wrapped
        and styled, and finished by Textual) was the dearest widget of a Val-Des
        table's frames after the log."""
        width = self.size.width
        style = self.visual_style
        drawn: dict[tuple[Hashable, int, int], Strip] = {}
        rows: list[Strip] = []
        for y, line in enumerate(self._shown_lines()):
            key = ((line.plain, tuple(line.spans)), width, y)
            row = self._drawn_rows.get(key)
            if row is None:
                visual = visualize(self, line, markup=False)
                row = _on_row(Visual.to_strips(self, visual, width, 1, style)[0], y)
            drawn[key] = row
            rows.append(row)
        self._drawn_rows, self._rows = drawn, rows
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y < len(self._rows):
            return self._rows[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)

    def render(self) -> Content:
        return Content("\n").join(self._shown_lines())

    def _shown_lines(self) -> list[Content]:
        """The slate's rows (made once for each state and look)."""
        if self._lines is None:
            self._lines = self._make_lines()
        return self._lines

    def _make_lines(self) -> list[Content]:
        if not self._names:
            return [Content("")]
        style = self._style
        names = [safe_text(name) for name in self._names]
        for name in names:
            name.truncate(NAME_WIDTH, overflow="ellipsis")
        width = max(4, *(name.cell_len for name in names))
        sets = max(len(self._reveals), len(self._calls))
        first = 0 if sets <= MAX_SETS_SHOWN else sets - (MAX_SETS_SHOWN - 1)
        shown = range(first, sets)
        more = "  …" if first else ""
        header_style = style("slate--header")

        lines: list[Content] = []
        header = _Row()
        header.add("Set".ljust(width) + more + "".join(f"{k + 1:>3}" for k in shown), header_style)
        header.add("   Pts", header_style)
        lines.append(header.content())

        cube = _Row()
        cube.add("Cube".ljust(width) + more, header_style)
        for k in shown:
            letter = call_letter(self._reveals[k]) if k < len(self._reveals) else " "
            cube.add(f"{letter:>3}", self._letter_style(letter))
        lines.append(cube.content())

        best = max(self._scores, default=None)
        for i, name in enumerate(names):
            row = _Row()
            row.add(name.plain + " " * (width - name.cell_len), style("slate--name"))
            row.add(more, header_style)
            for k in shown:
                self._cell(row, i, k)
            score = self._scores[i] if i < len(self._scores) else 0
            total = style("slate--leader") if score == best else style("slate--total")
            row.add(f"  {score:>4}", total)
            lines.append(row.content())
        return lines

    def _cell(self, row: _Row, player: int, k: int) -> None:
        style = self._style
        calls = self._calls[k] if k < len(self._calls) else {}
        if player not in calls:
            row.add("  ·", style("slate--pending"))
            return
        letter = call_letter(calls[player])
        row.add(" " + letter, self._letter_style(letter))  # the space joins the letter's run
        if k >= len(self._reveals):
            row.add("…", style("slate--pending"))
        elif letter == call_letter(self._reveals[k]):
            row.add("✓", style("slate--right"))
        else:
            row.add("✗", style("slate--wrong"))

    def _letter_style(self, letter: str) -> ContentStyle | None:
        if letter == "V":
            return self._style("slate--val")
        if letter == "D":
            return self._style("slate--des")
        return None

    def _style(self, component: str) -> ContentStyle:
        """A component's style, looked up once until the styles change (a refresh clears
        Textual's own cache of them, and the slate repaints on every new mark)."""
        style = self._styles.get(component)
        if style is None:
            rich = component_style(self, component)
            style = self._styles[component] = ContentStyle.from_rich_style(rich)
        return style


def _on_row(strip: Strip, y: int) -> Strip:
    """`strip`, drawn alone as row 0, with the offsets of row `y` that Textual puts in
    each piece's style (where a mouse selection finds the text), as when drawn whole."""
    if y == 0:
        return strip
    segments = []
    for segment in strip:
        text, style, control = segment
        offset = style.meta.get("offset") if style is not None else None
        if style is not None and offset is not None:
            style = style + Style.from_meta({"offset": (offset[0], y)})
            segment = Segment(text, style, control)
        segments.append(segment)
    return Strip(segments, strip.cell_length)


class _Row:
    """One line of the slate built as plain text and style spans: far cheaper to draw
    than a rich `Text` assembled piece by piece and converted."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._spans: list[Span] = []
        self._end = 0

    def add(self, text: str, style: ContentStyle | None = None) -> None:
        if not text:
            return
        start, self._end = self._end, self._end + len(text)
        self._parts.append(text)
        if style is None:
            return
        last = self._spans[-1] if self._spans else None
        if last is not None and last.end == start and last.style == style:
            self._spans[-1] = Span(last.start, self._end, style)  # fewer, longer runs
        else:
            self._spans.append(Span(start, self._end, style))

    def content(self) -> Content:
        return Content("".join(self._parts), spans=self._spans)
