"""The back room's help (`?` in the lobby): its keys, joining, watching, rejoin codes.

Plain text in our own words, drawn as `Content` (nothing in it is markup), in a dialog that
fits 80 x 24 and scrolls when the terminal is smaller.
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
    "The back room lists the shared tables of this cantina: each one's code, its game,"
    " how many sit and watch, and who set it. Under the list: who is at the table picked.",
    "Up and down pick a table. Enter sits you at it: at a free seat while it waits for"
    " its start, or back at your own seat once it plays.",
    "w watches the table picked, whether it plays already or still waits for players;"
    " if it starts while you watch, you follow it as a spectator.",
    "j goes to the code field: a table's 4-letter code and Enter sit you at that table.",
    "v, d and i set a new table of Vigo's Favor, Val-Des or Victim!, which you start when"
    " everyone has sat down; c sets one of your own campaigns instead (with a key only)."
    " m plays alone against the AI; q leaves the cantina.",
    "If you leave a table, or your link drops, your seat waits for you; after a while the"
    " stand-in AI plays it, and everyone sees how long is left. Come back to play it"
    " yourself. With a key, you connect again and are back at your seat.",
    "A guest (no key) sees a 6-letter rejoin code while seated. From a new connection,"
    " type it in the code field and press Enter: the seat is yours again, and the code"
    " stays yours for next time. Keep it to yourself. A few wrong codes and the field"
    " takes no more on that connection. The code ends with its table.",
    "One player may have two tables open at a time. A table nobody sits at or watches"
    " closes after a while.",
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
