"""The back room's help (`?` in the lobby): its keys, joining, watching, rejoin codes.

Plain text in our own words, drawn as `Content` (nothing in it is markup), in a dialog that
fits 80 x 24 whole (a test holds it to that) and scrolls when the terminal is smaller.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from screens.footer import CantinaFooter

LOBBY_HELP = (
    "The list holds this cantina's shared tables: code, game, who sits and watches, who"
    " set it. Up and down pick one. Enter sits you at it (a free seat while it waits, your"
    " own seat once it plays); w watches it, even while it fills up. j goes to the code"
    " field: a table's 4-letter code and Enter sit you there (Esc leaves it).",
    "v, d and i set a new table of Vigo's Favor, Val-Des or Victim!, started once all have"
    " sat; c sets one of your campaigns instead (with a key). Two tables open at a time."
    " m plays alone against the AI; / talks, h shows the chat and who to mute; q leaves.",
    "Leave a table, or lose your link, and your seat waits: everyone sees a countdown, then"
    " the stand-in AI plays it until you are back. With a key, connect again and you are"
    " in your seat.",
    "A guest (no key) sees a 6-letter rejoin code while seated: typed in the code field"
    " from a new connection, it gives the seat back, and stays yours until the table"
    " ends. Keep it secret; a few wrong codes and the field takes no more.",
    "A table nobody sits at or watches closes after a while.",
)
"""The help's paragraphs, each wrapped to the terminal's width."""


class LobbyHelpScreen(ModalScreen[None]):
    """What the back room's keys do, and how joining, watching and rejoining work."""

    DEFAULT_CSS = """
    LobbyHelpScreen { align: center middle; background: $background 100%; }
    LobbyHelpScreen > VerticalScroll {
        width: 92; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
    }
    LobbyHelpScreen #lobby-help-title { text-style: bold; color: $primary; }
    """

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Back", id="lobby-help.back")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Content("The back room: help"), id="lobby-help-title")
            yield Static(Content("\n\n").join(map(Content, LOBBY_HELP)), id="lobby-help-text")
        yield CantinaFooter()
