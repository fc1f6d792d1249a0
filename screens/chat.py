"""Chat on screen: the last few lines of a room, a line to type in, and the whole of it.

The panel is light on purpose (every session in the lobby has one): its title and last
lines drawn as one widget, holding only the lines on show, and an input that takes the
focus only when asked (`/`), so no key meant for the table ever lands in it by chance and none
typed in it reaches the table. The whole room, with a key to mute whoever said a line,
opens on `h` as its own screen, only while it is open. Lines are shown as the plain
text they are (the room has cleaned them), never as markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from cantina.chat import MAX_LINE, ChatLine, ChatSeat
from cantina.text import clean_text
from screens.drawing import KeptStyles, plain_rows, wrap_plain
from screens.footer import CantinaFooter

ROWS = 3
"""Rows of recent lines a panel shows."""
BREAKS = re.compile(r"[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]+")
"""What separates a pasted text's lines (and a tab): a space in the chat's one line."""
QUIET = "Nobody has said anything yet."
ONLY_MUTED = "Only people you muted have spoken (h shows their lines, m unmutes)."
"""What the panel says when the room has lines but none this viewer reads: "nobody has
said anything" would be untrue."""
CUT = "…"
"""Ends the rows of a line cut short (the panel shows its start: h shows all of it)."""
IDLE_PLACEHOLDER = "press / to talk"
TYPING_PLACEHOLDER = "Enter sends, Esc leaves the chat"


class ChatInput(Input):
    """The line a player types, which never holds a control character: what a paste
    brings (Textual passes a tab or a BEL in one on as it is) is cleaned as it goes in,
    so not even the player's own terminal is sent one back."""

    def replace(self, text: str, start: int, end: int) -> None:
        """Every change to the line (a key, a paste, a deletion) comes through here."""
        super().replace(clean_text(text), start, end)

    def on_paste(self, event: events.Paste) -> None:
        """A paste goes in whole, its line breaks and tabs as spaces, cut to the room left
        in the line. Textual's Input kept a paste's first line only, and refused a paste
        longer than the room left outright: both lost without a word (seen in a play-test,
        pasting three lines). Textual's own handler does not run after this one."""
        event.prevent_default()
        event.stop()
        text = clean_text(BREAKS.sub(" ", event.text))
        start, end = sorted(self.selection)
        room = self.max_length - (len(self.value) - (end - start)) if self.max_length else None
        text = text[:room] if room is not None else text
        if text:
            self.replace(text, start, end)


def fitted_rows(lines: list[str], width: int, rows: int) -> list[str]:
    """The newest `lines` wrapped to `width`, in at most `rows` rows: whole lines from the
    newest back; the oldest shown, when it does not fit whole, by its start (its speaker's
    name first) and `CUT`, never by its end alone, which says neither who said it nor that
    it was cut."""
    if width <= 0 or rows <= 0:
        return []
    shown: list[str] = []
    for line in reversed(lines):
        wrapped = wrap_plain(line, width)
        left = rows - len(shown)
        if len(wrapped) <= left:
            shown[:0] = wrapped
            continue
        if left > 0:
            head = wrapped[:left]
            last = head[-1]
            if cell_len(last) + cell_len(CUT) > width:
                last = chop_cells(last, width - cell_len(CUT))[0].rstrip()
            head[-1] = last + CUT
            shown[:0] = head
        break
    return shown


class ChatLines(KeptStyles, Widget):
    """The panel's title and its last lines, drawn as one widget (each widget of a
    session's screen costs tens of KiB, and every session in the lobby has a panel): the
    title a row, dimmed, then the newest lines, wrapped, as many rows as fit (a line too
    long for what is left shows its start: `fitted_rows`)."""

    DEFAULT_CSS = f"""
    ChatLines {{ height: {ROWS + 1}; }}
    ChatLines > .chat-lines--title {{ color: $text-muted; }}
    """
    COMPONENT_CLASSES = {"chat-lines--title"}

    def __init__(self, title: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.said: list[str] = []
        self.empty = QUIET
        """What is shown when no line is (`QUIET`, or `ONLY_MUTED`)."""
        self._rows: list[Strip] = []

    def show(self, lines: list[str], empty: str = QUIET) -> None:
        self.said = lines
        self.empty = empty
        self.refresh()

    @property
    def rows(self) -> list[str]:
        """The rows of lines drawn (the title not counted), as plain text."""
        return [strip.text.rstrip() for strip in self._rows[1:]]

    def render_lines(self, crop: Region) -> list[Strip]:
        width, height = self.size
        style = self.visual_style.rich_style
        muted = self._style("chat-lines--title")
        rows = plain_rows(self.title, width, style + muted)[:1]
        said_style = style if self.said else style + muted
        said = [
            Strip([Segment(row + " " * (width - cell_len(row)), said_style)], width)
            for row in fitted_rows(self.said or [self.empty], width, height - 1)
        ]
        self._rows = rows + said
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y < len(self._rows):
            return self._rows[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)


class ChatPanel(Vertical):
    """A room's last lines, as this viewer reads them (muted people left out), and the
    line to type in."""

    DEFAULT_CSS = """
    ChatPanel { height: auto; }
    ChatPanel Input { width: 1fr; }
    """

    BINDINGS = [Binding("escape", "leave", "Leave the chat", id="chat.leave")]

    class Heard(Message):
        """The room has a new line (several before the panel looks count as one)."""

    def __init__(self, seat: ChatSeat, *, title: str = "Chat (h: all of it)", **kwargs) -> None:
        super().__init__(**kwargs)
        self.seat = seat
        self.title = title
        self._stop = lambda: None
        self._heard = False
        self._back_to: Widget | None = None
        self._then: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield ChatLines(self.title, id="chat-lines")
        field = ChatInput(
            placeholder=IDLE_PLACEHOLDER, id="chat-input", compact=True, max_length=MAX_LINE
        )
        field.can_focus = False  # only `/` gives it the focus (see `start`)
        field.cursor_blink = False  # a blinking cursor is a frame a second, per player
        yield field

    def on_mount(self) -> None:
        self._stop = self.seat.room.listen(self._on_line)
        self.show()

    def on_unmount(self) -> None:
        self._stop()

    def _on_line(self, line: ChatLine) -> None:
        """Called by the room, from whichever session spoke: look later, in this one."""
        if not self._heard:
            self._heard = True
            self.post_message(self.Heard())

    def on_chat_panel_heard(self, message: Heard) -> None:
        message.stop()
        self._heard = False
        self.show()

    def show(self) -> None:
        """The last lines this viewer reads (each at least a row: no more are needed)."""
        lines = [line.plain() for line in self.seat.visible()[-ROWS:]]
        empty = ONLY_MUTED if not lines and self.seat.room.lines else QUIET
        self.query_one(ChatLines).show(lines, empty)

    @property
    def lines(self) -> list[str]:
        """The lines on show (the last few)."""
        return self.query_one(ChatLines).said

    @property
    def field(self) -> Input:
        return self.query_one("#chat-input", Input)

    @property
    def typing(self) -> bool:
        return self.field.has_focus

    def start(self, then: Callable[[], None] | None = None) -> None:
        """Give the line the focus, to type; Esc gives it back to where it was, then calls
        `then` (the game's result the chat was opened from comes back)."""
        field = self.field
        if field.has_focus:
            return
        self._then = then
        self._back_to = self.screen.focused
        field.can_focus = True
        field.placeholder = TYPING_PLACEHOLDER
        self.screen.set_focus(field)  # now, not after the keys already on their way

    def action_leave(self) -> None:
        field = self.field
        field.placeholder = IDLE_PLACEHOLDER
        back = self._back_to
        self._back_to = None
        if back is not None and back.is_attached and back.focusable:
            self.screen.set_focus(back)
        else:
            self.screen.set_focus(None)
        field.can_focus = False
        then, self._then = self._then, None
        if then is not None:
            then()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Say the line; an empty one leaves the chat. Only the chat's own: the screen
        (the lobby's join code) never sees it."""
        event.stop()
        text = event.value
        if not text.strip():
            event.input.value = ""
            self.action_leave()
            return
        try:
            self.seat.say(text)
        except ValueError as err:  # too fast: the line stays, to send again in a moment
            self.notify(str(err), severity="warning", markup=False)
            return
        event.input.value = ""

    def show_history(self) -> None:
        self.app.push_screen(ChatHistoryScreen(self.seat), lambda _: self.show())


def chat_key_acts(screen: Widget) -> bool:
    """Whether `/` opens the chat on `screen`: not while its chat line has the keys (then
    `/` is typed into it). The key is a priority binding, so that the focus moves as it
    is read, before the keys typed right behind it are sent on to the widget that had it."""
    panels = screen.query(ChatPanel)
    return bool(panels) and not panels.first().typing


class ChatHistoryScreen(ModalScreen[None]):
    """Every line the room keeps, to scroll back through, going on while open; `m` mutes
    (or unmutes) whoever said the highlighted line, for this viewer only."""

    DEFAULT_CSS = """
    ChatHistoryScreen { background: $background 100%; }
    ChatHistoryScreen #chat-history-title { height: 1; padding: 0 1; background: $panel; }
    ChatHistoryScreen OptionList { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("m", "mute", "Mute or unmute who said it", id="chat-history.mute"),
        Binding("escape,h,q", "dismiss", "Back", id="chat-history.back"),
    ]

    def __init__(self, seat: ChatSeat) -> None:
        super().__init__()
        self.seat = seat
        self.lines: list[ChatLine] = []
        self._stop = lambda: None
        self._filling = False

    def compose(self) -> ComposeResult:
        yield Static(
            Content("The whole chat here (m on a line mutes or unmutes who said it)"),
            id="chat-history-title",
        )
        yield OptionList(id="chat-history")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self._stop = self.seat.room.listen(self._on_line)
        self.fill()
        lines = self.query_one(OptionList)
        lines.focus()
        if self.lines:
            lines.highlighted = len(self.lines) - 1

    def on_unmount(self) -> None:
        self._stop()

    def _on_line(self, line: ChatLine) -> None:
        """Called by the room from whichever session spoke: fill the list later, once for
        however many lines came meanwhile."""
        if not self._filling:
            self._filling = True
            self.call_later(self.fill)

    def row(self, line: ChatLine) -> Content:
        if self.seat.shown(line):
            return Content(line.plain())
        return Content.styled(f"{line.who}: (muted)", "dim")

    def fill(self) -> None:
        """Every line kept, the muted ones' text hidden (so they can be unmuted)."""
        self._filling = False
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        at_end = highlighted is None or highlighted >= len(self.lines) - 1
        self.lines = list(self.seat.room.lines)
        options.clear_options()
        if not self.lines:
            options.add_option(Option(Content("Nobody has said anything here yet."), disabled=True))
            return
        options.add_options([Option(self.row(line)) for line in self.lines])
        if at_end:
            options.highlighted = len(self.lines) - 1
        elif highlighted is not None:
            options.highlighted = min(highlighted, len(self.lines) - 1)

    def action_mute(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None or index >= len(self.lines):
            return
        line = self.lines[index]
        try:
            muted = self.seat.toggle_mute(line)
        except ValueError as err:
            self.notify(str(err), severity="warning", markup=False)
            return
        said = "their lines are hidden from you" if muted else "you read their lines again"
        self.notify(f"{'Muted' if muted else 'Unmuted'} {line.name}: {said}.", markup=False)
        self.fill()
