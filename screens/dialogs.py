"""Small modal screens: the hot-seat hand-off, the log, and the questions asked before
changing a saved campaign."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RichLog, Static

from screens.footer import CantinaFooter
from screens.stylesheets import stylesheets

HAND_OFF_TEXT_WIDTH = 66
"""The cells a line of the hand-off's text gets: its width of 72, less border and padding."""


class HandOffScreen(ModalScreen[bool]):
    """Hot-seat: hides the table until the named player has the keyboard, so a secret
    choice is never on screen for anyone else. What everyone may see of the turn before
    (the cards revealed, the battle) is told on it, so covering the table hides nothing
    public."""

    DEFAULT_CSS = """
    HandOffScreen { align: center middle; background: $background 100%; }
    HandOffScreen > Vertical {
        width: 72; height: auto; max-height: 100%; border: double $primary; padding: 1 2;
    }
    HandOffScreen Static { width: 100%; content-align: center middle; margin-bottom: 1; }
    HandOffScreen #last-turn { content-align: left top; color: $text-muted; }
    HandOffScreen Button { width: 100%; }
    """
    BINDINGS = [
        Binding("enter", "ready", "I have the keyboard", id="handoff.ready"),
        Binding("escape", "leave", "Leave the table", id="handoff.leave"),
    ]

    def __init__(
        self, name: str, what: str, seen: Sequence[str] = (), leaving: str | None = None
    ) -> None:
        super().__init__()
        self.player = name
        self.what = what
        self.seen = list(seen)
        """What everyone saw since the last hand-off."""
        self.leaving = leaving
        """What to ask before leaving the table from here (None: nothing is at stake);
        asked over this screen, so the table stays covered."""

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.seen:
                said = Content("\n").join(Content(line) for line in self.seen)
                yield Static(Content("What everyone saw:\n") + said, id="last-turn")
            yield Static(Content.assemble("Pass the keyboard to ", (self.player, "bold"), "."))
            yield Static(Content(f"Everyone else, look away: {self.what}."))
            # no footer: the line it takes would cut the button off a full hand-off
            yield Button(Content.assemble(self.player, ", press Enter (Esc leaves)"), id="ready")

    def on_button_pressed(self) -> None:
        self.dismiss(True)

    def action_ready(self) -> None:
        self.dismiss(True)

    def action_leave(self) -> None:
        """Dismissed with False once leaving is sure: the table then leaves, unasked."""
        if self.leaving is None:
            self.dismiss(False)
            return
        self.app.push_screen(ConfirmScreen(self.leaving), self._leave_if)

    def _leave_if(self, sure: bool | None) -> None:
        if sure:
            self.dismiss(False)


class HistoryScreen(ModalScreen[None]):
    """The whole story of the game at this table, to scroll back through; it goes on
    while it is open (`add`), as the table tells it."""

    DEFAULT_CSS = """
    HistoryScreen { background: $background 100%; }
    HistoryScreen #history-title { height: 1; padding: 0 1; background: $panel; }
    HistoryScreen RichLog { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,l,q", "dismiss", "Back", id="history.back")]

    def __init__(self, heading: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.heading = heading
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        yield Static(Content(self.heading), id="history-title")
        yield RichLog(wrap=True, markup=False, min_width=20, id="history")
        yield CantinaFooter()

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        for line in self.lines:
            log.write(Content(line))
        log.focus()

    def add(self, lines: Sequence[str]) -> None:
        """New lines of the story, as the table tells them."""
        self.lines.extend(lines)
        if self.is_mounted:
            log = self.query_one(RichLog)
            for line in lines:
                log.write(Content(line))


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no question before something that cannot be undone."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self.question))
            yield Button(Content("Yes  [y]"), id="yes", variant="error")
            yield Button(Content("No  [n]"), id="no")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


STAY, EXPORT, LEAVE = "stay", "export", "leave"


class UnsavedScreen(ModalScreen[str]):
    """Before leaving a campaign whose last decisions could not be saved: what would be
    lost, and the choice to stay, export it elsewhere (where files may be), or leave."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [
        Binding("s,escape", f"answer({STAY!r})", "Stay", id="unsaved.stay"),
        Binding("e", f"answer({EXPORT!r})", "Export", id="unsaved.export"),
        Binding("l", f"answer({LEAVE!r})", "Leave anyway", id="unsaved.leave"),
    ]

    def __init__(self, message: str, *, export: bool) -> None:
        super().__init__()
        self.message = message
        self.export = export

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self.message))
            yield Button(Content("Stay  [s]"), id=STAY)
            if self.export:
                yield Button(Content("Export it elsewhere  [e]"), id=EXPORT)
            yield Button(Content("Leave anyway  [l]"), id=LEAVE, variant="error")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.query_one(f"#{STAY}", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.export or parameters != (EXPORT,)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or STAY)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)


class AskScreen(ModalScreen[str | None]):
    """One line of text (a new name, a place to export to); None when cancelled."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel")]

    def __init__(self, question: str, value: str = "", *, max_length: int = 0) -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.max_length = max_length

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self.question))
            yield Input(value=self.value, max_length=self.max_length, id="answer")
            yield Static(Content("Enter to confirm, Esc to cancel"), classes="hint")
        yield CantinaFooter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
