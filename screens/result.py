"""The end of a round, game or match: who won, the standings, the key moments, the seed.

The dialog decides nothing: it returns what the person chose (`AGAIN`, `LOG`, `ANALYSIS`,
`TABLE`, `BACK` or `CHAT`) and the table screen that opened it goes on from there. A spectator
is offered no next game. Its middle part scrolls, so eight seats and their moments fit 80 x 24.
Over a shared table, `/` goes to the table's chat (the dialog goes, so no letter typed there is
one of its keys; leaving the chat brings it back) and `h` opens the whole chat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Self

from rich.console import RenderableType
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from cantina.dealer import Place
from cantina.games import GAMES
from cantina.live import LiveTable
from cantina.narration import Narrator
from screens.footer import DialogFooter
from screens.services import UsesApp
from screens.textual_compat import (
    KeptLines,
    kept_background,
    own_resize,
    resume_keeps_styles,
)

AGAIN = "again"
"""The next round, game or match at this table (or the final standings of a campaign)."""
LOG = "log"
"""The whole story of the game, then this result again."""
TABLE = "table"
"""Close the result and look at the table as the game left it (the table offers it back)."""
BACK = "back"
"""Leave the table."""
ANALYSIS = "analysis"
"""What each decision cost and what the dice gave (the Review), then this result again."""
CHAT = "chat"
"""To the table's chat, the result closed meanwhile (`ResultScreen.action_chat`)."""
MOMENTS_SHOWN = 8
FINAL_STANDINGS = "Final standings"
"""What `n` opens after a campaign's last round, in place of the game's next one."""
AGAIN_WORDS = sorted({info.again for info in GAMES.values()} | {FINAL_STANDINGS})
"""What `n` can say it does: one binding each, the footer showing the one its button says."""


class ResultScreen(UsesApp, ModalScreen[str | None]):
    BINDINGS = [
        *(Binding("n", f"again({words!r})", words, id="result.again") for words in AGAIN_WORDS),
        Binding("l", "choose('log')", "Log", id="result.log"),
        Binding("a", "choose('analysis')", "Analysis", id="result.analysis"),
        Binding("escape", "choose('table')", "See the table", id="result.table"),
        Binding("b", "choose('back')", "Leave", id="result.back"),
        # over a shared table only, as at the table (`TableScreen`): `/` has priority, so the
        # focus moves as it is read, before the keys typed right behind it go anywhere
        Binding("slash", "chat", "Chat", show=False, priority=True, id="result.chat"),
        Binding("h", "chat_history", "Chat history", show=False, id="result.chat_history"),
        # the game's rules, as the table's `?` opens them (no room in the footer at 80)
        Binding("f1,question_mark", "rules", "Rules", show=False, id="result.rules"),
    ]

    def __init__(self, table: LiveTable) -> None:
        """The result dialog of `table`'s games: `for_game` says which, before it is shown."""
        super().__init__()
        self.table = table
        self.kept_lines = KeptLines()
        """The table behind, tinted, by row: drawn again only where the table changed."""

    def for_game(
        self,
        place: Place,
        headline: str,
        standings: Sequence[Content],
        seed: str = "",
        *,
        chat: Callable[[], None] | None = None,
        chat_history: Callable[[], None] | None = None,
    ) -> Self:
        """Say the result of the table's game now over, to `place`'s viewer: this
        dialog's first, or a later one. `headline` and `standings` are the game's own
        words (its table screen's); `seed` says how to play this game again. `chat` gives
        the keys to the table's chat line, once this dialog has gone; `chat_history`
        opens the whole chat (a shared table's: a hot-seat table has none).

        A table's screen keeps its result dialog and shows it again at each game's end:
        making one (a dozen widgets and a footer) took some 20 to 30 ms in one step of a
        host's loop at every game's end, and taking it down laid the table behind it out
        twice more. A kept one has its words put in, and its scroll and focus put back
        where a new one has them."""
        self.setup = self.table.setup
        self.place = place
        self.headline = headline
        self.rows = list(standings)
        self.seed = seed
        self.chat = chat
        self.chat_history = chat_history
        self.moments = self.table.key_moments()
        """Read from the table's log: the same for every viewer of the table, each moment
        once with how many times it happened."""
        if not self.is_mounted:
            return self  # `compose` puts them in
        self.kept_lines.forget(())
        self.query_one("#headline", Static).update(Content(self.headline))
        self.query_one("#standings", Static).update(self.standings())
        self._show(self.query_one("#moments", Static), self.moments_text())
        self._show(self.query_one("#result-seed", Static), Content(self.seed))
        again = self.query_one("#again", Button)
        again.label = self.again_label()
        again.display = self.place.player
        self.query_one("#result-body", VerticalScroll).scroll_home(animate=False)
        self.set_focus(None)  # as a new one's: its first focusable, as it is shown
        self.refresh_bindings()
        return self

    @staticmethod
    def _show(part: Static, text: Content) -> Static:
        """`part` saying `text`, or not on show when there is nothing to say."""
        part.update(text)
        part.display = bool(text)
        return part

    def post_message(self, message: Message) -> bool:
        """Styled as its widgets mount, not restyled whole as it is first shown (every
        game's end at a hosted table: some 11 ms of the host's loop in one step), nor
        shown again unless a theme changed meanwhile (`resume_keeps_styles`); nor laid out
        a second time by the resize it sends itself from its first layout, with the table
        behind it (`own_resize`: some 10 ms of a host's loop a game)."""
        resume_keeps_styles(self, message)
        if own_resize(self, message):
            return False
        return super().post_message(message)

    def render(self) -> RenderableType:
        """The table behind the dialog, tinted, each row drawn once while it is the same
        (`kept_background`): the result's screen is refreshed whole as its widgets and
        footer keys mount, and each refresh drew and tinted the whole table again."""
        return kept_background(self, super().render(), self.kept_lines)

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        """As Textual's; `regions` are where the table behind changed, when it did (the
        table's screen refreshes the top screen there), so those rows are drawn again."""
        if regions:
            self.kept_lines.forget(regions)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def compose(self) -> ComposeResult:
        """Every part a result can have, those with nothing to say not on show (the key
        moments, the seed, a spectator's `n`): a result shown again fills them in."""
        with Vertical(id="result"):
            yield Static(Content(self.headline), id="headline")
            with VerticalScroll(id="result-body"):
                yield Static(self.standings(), id="standings")
                yield self._show(Static(id="moments"), self.moments_text())
                # scrolled to with the rest: its command can take lines
                yield self._show(Static(id="result-seed"), Content(self.seed))
            with Horizontal(id="result-buttons"):
                again = Button(self.again_label(), id="again", variant="primary")
                again.display = self.place.player
                yield again
                yield Button(Content("Leave the table  [b]"), id="back")
        yield DialogFooter()

    def standings(self) -> Content:
        return Content("\n").join(self.rows)

    def moments_text(self) -> Content:
        """The game's last key moments, in the table's names (none: nothing to show)."""
        lines = Narrator(self.setup.names).moments(self.moments)[-MOMENTS_SHOWN:]
        return Content("Key moments:\n" + "\n".join(lines)) if lines else Content("")

    def again_label(self) -> Content:
        return Content(f"{self.again_words()}  [n]")

    def again_words(self) -> str:
        """What `n` does here, said the same on its button and in the footer: the game's
        next one ("Next round", "New game", "Rematch"), or a campaign's final standings."""
        keeper = self.table.keeper
        if keeper is not None and keeper.over:
            return FINAL_STANDINGS
        return GAMES[self.setup.game].again

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "again":
            # a spectator does not start the players' next game
            return self.place.player and parameters == (self.again_words(),)
        if action == "choose" and parameters == (AGAIN,):
            return self.place.player
        if action == "chat":
            return self.chat is not None
        if action == "chat_history":
            return self.chat_history is not None
        return True

    def only_watch(self, place: Place) -> None:
        """The table's screen has become a spectator's (its seat is played from another
        connection now): no next game from here either."""
        self.place = place
        for again in self.query("#again"):
            again.display = False
        self.refresh_bindings()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.action_choose(AGAIN if event.button.id == "again" else BACK)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def action_again(self, words: str) -> None:
        """`n`, under the name its button has (`again_words`)."""
        self.dismiss(AGAIN)

    def action_chat(self) -> None:
        """Close, and give the table's chat line the keys at once: the keys typed right
        behind `/` are the line's, not this dialog's (its `a`, `l`, `n`, `b`)."""
        chat = self.chat
        if chat is None:
            return
        self.dismiss(CHAT)
        chat()

    def action_chat_history(self) -> None:
        if self.chat_history is not None:
            self.chat_history()

    def action_rules(self) -> None:
        """The game's rules over this result (`?` did nothing here); closing them comes
        back to it."""
        self.cantina.action_rules(self.setup.game)
