"""Small modal screens: the hot-seat hand-off, the log, and the questions asked before
changing a saved campaign."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, RichLog, Static

from screens.stylesheets import stylesheets


class HandOffScreen(ModalScreen[bool]):
    """Hot-seat: hides the table until the named player has the keyboard, so a secret
    choice is never on screen for anyone else."""

    DEFAULT_CSS = """
    HandOffScreen { align: center middle; background: $background 100%; }
    HandOffScreen > Vertical {
        width: 56; height: auto; border: double $primary; padding: 1 2;
    }
    HandOffScreen Static { width: 100%; content-align: center middle; margin-bottom: 1; }
    HandOffScreen Button { width: 100%; }
    """
    BINDINGS = [Binding("enter", "ready", "I have the keyboard", id="handoff.ready")]

    def __init__(self, name: str, what: str) -> None:
        super().__init__()
        self.player = name
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content.assemble("Pass the keyboard to ", (self.player, "bold"), "."))
            yield Static(Content(f"Everyone else, look away: {self.what}."))
            yield Button(Content.assemble(self.player, ", press Enter"), id="ready")

    def on_button_pressed(self) -> None:
        self.dismiss(True)

    def action_ready(self) -> None:
        self.dismiss(True)


class HistoryScreen(ModalScreen[None]):
    """Everything narrated at this table so far, to scroll back through."""

    DEFAULT_CSS = """
    HistoryScreen { background: $background 100%; }
    HistoryScreen RichLog { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,l,q", "dismiss", "Back to the table", id="history.back")]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        log = RichLog(wrap=True, markup=False, min_width=20, id="history")
        yield log
        yield Footer()

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        for line in self.lines:
            log.write(Content(line))
        log.focus()


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
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
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
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
