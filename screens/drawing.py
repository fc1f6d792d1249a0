"""Drawing kept between repaints, for the small widgets a table repaints after every move.

Textual draws a widget again from `render()` on every refresh, wrapping and styling its text
each time; after a move a table refreshes a dozen small widgets (dice, hearts, names) that
mostly show something they have shown before. These mixins keep what was looked up or
drawn, keyed by what it depends on, and drop it when Textual restyles the widget (a theme,
a class), which it always announces with `notify_style_update`.
"""

from __future__ import annotations

from collections.abc import Hashable

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget

KEPT_DRAWINGS = 16
"""Drawings kept per widget: a die has at most 12 faces; older drawings go first."""


def component_style(widget: Widget, component: str) -> Style:
    """A component class's colour and text style, without a background.

    The colour comes from the full style, so translucent theme colours such as `$text-muted`
    are blended against what lies behind; the background is left to the widget's own styles
    (a `-changed` highlight shows behind the text).
    """
    full = widget.get_component_rich_style(component)
    partial = widget.get_component_rich_style(component, partial=True)
    return Style(color=full.color) + partial.without_color


class KeptStyles:
    """For a widget drawing component classes: each component's style is looked up once
    and kept until the widget's styles change (a theme, a class such as `-changed`).
    Textual forgets its own copy on every refresh, and these widgets refresh on every new
    face or figure."""

    def _style(self, component: str) -> Style:
        kept: dict[str, Style] = self.__dict__.setdefault("_kept_styles", {})
        style = kept.get(component)
        if style is None:
            style = kept[component] = component_style(self, component)  # type: ignore[arg-type]
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()  # type: ignore[misc]
        self.__dict__.pop("_kept_styles", None)


class KeptDrawing(KeptStyles):
    """For a widget whose `render()` depends only on `drawing_key()` (and its size and
    styles): each drawing is kept, so showing a face or a figure shown before costs a
    look-up, not the wrapping and styling of its text again."""

    def drawing_key(self) -> Hashable:
        """Everything `render()` depends on besides the size and the styles."""
        raise NotImplementedError

    def drawing_style(self) -> VisualStyle:
        """The style the drawing is made in: the widget's own, unless it draws a state
        of its own over it (a state in `drawing_key`, so each look is kept apart)."""
        widget: Widget = self  # type: ignore[assignment]
        return widget.visual_style

    def render_lines(self, crop: Region) -> list[Strip]:
        widget: Widget = self  # type: ignore[assignment]
        width, height = widget.size
        if not widget.is_attached:
            # Removed (a footer's keys replaced while its screen lay under a dialog), yet
            # still in the map of that screen's last frame: its styles are gone, so a
            # frame drawn before the next layout shows it blank.
            return [Strip.blank(crop.width, widget.visual_style.rich_style)] * crop.height
        key = (self.drawing_key(), width, height)
        kept: dict[Hashable, list[Strip]] = self.__dict__.setdefault("_kept_drawings", {})
        rows = kept.get(key)
        if rows is None:
            if len(kept) >= KEPT_DRAWINGS:
                del kept[next(iter(kept))]
            visual = visualize(widget, widget.render(), markup=False)
            style = self.drawing_style()
            rows = kept[key] = Visual.to_strips(widget, visual, width, height, style)
        self._kept_rows = rows
        return super().render_lines(crop)  # type: ignore[misc]

    def render_line(self, y: int) -> Strip:
        rows: list[Strip] = self.__dict__.get("_kept_rows", [])
        if y < len(rows):
            return rows[y]
        widget: Widget = self  # type: ignore[assignment]
        return Strip.blank(widget.size.width, widget.visual_style.rich_style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.__dict__.pop("_kept_drawings", None)


def wrap_plain(text: str, width: int) -> list[str]:
    """Plain `text` in lines of at most `width` cells, broken at spaces (a word wider than
    a line is cut): the narration's wrapping, a fraction of the cost of styled text's."""
    if width <= 0:
        return []
    lines: list[str] = []
    current, used = "", 0
    for word in text.split():
        size = cell_len(word)
        if size > width:  # cut it: whole lines of it, and the rest goes on as a word
            if current:
                lines.append(current)
            *whole, word = chop_cells(word, width)
            lines.extend(whole)
            current, used = word, cell_len(word)
        elif not current:
            current, used = word, size
        elif used + 1 + size <= width:
            current, used = f"{current} {word}", used + 1 + size
        else:
            lines.append(current)
            current, used = word, size
    if current or not lines:
        lines.append(current)
    return lines


def plain_rows(text: str, width: int, style: Style) -> list[Strip]:
    """Plain `text` wrapped to `width` cells, one strip a row, each padded to the width."""
    return [
        Strip([Segment(line + " " * (width - cell_len(line)), style)], width)
        for line in wrap_plain(text, width)
    ]
