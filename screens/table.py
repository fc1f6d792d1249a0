"""What every game's table screen shares: following the table, the log, the decision bar.

A table screen draws one table as its `Dealer` has shown it so far: the narration and the
dice from the table's event log up to `Dealer.shown`, the figures from the state as it
stood then. A screen that arrives late (a spectator, a player back after a drop, a
resumed campaign) draws the same log from its start, at once, and so tells the same story
as one that was there all along. It forwards a person's picks to the dealer and decides
nothing about turns: who acts next, the AI seats, the pace and the next game are the
dealer's. The game screens (`screens/vigo.py`, `valdes.py`, `victim.py`) add a board and
the words for each option.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from typing import Any

from rich.cells import cell_len
from textual import constants
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from cantina.analysis import record_of
from cantina.campaign.series import Campaign
from cantina.chat import ChatSeat
from cantina.dealer import ASKING, OVER, REPLAYED, SHOWING, THINKING, Dealer, Place
from cantina.games import GAMES
from cantina.games.events import Event
from cantina.games.table import Action, Decision, Game, IllegalAction, Kind
from cantina.live import LiveTable
from cantina.narration import Narrator
from cantina.seating import play_command
from screens.chat import ChatPanel, chat_key_acts
from screens.dialogs import HAND_OFF_TEXT_WIDTH, ConfirmScreen, HandOffScreen, HistoryScreen
from screens.dice import Die
from screens.drawing import wrap_plain
from screens.footer import TableFooter
from screens.result import AGAIN, ANALYSIS, BACK, LOG, ResultScreen
from screens.review import ReviewScreen
from screens.services import UsesApp
from screens.standings import StandingsScreen
from screens.stylesheets import stylesheets
from screens.table_widgets import DecisionBar, Line, NarrationLog
from screens.textual_compat import own_resize, resume_keeps_styles

MAX_OPTIONS = 9
HAND_OFF_LINES = 12
"""The most rows (lines as wrapped) of what happened a hot-seat hand-off tells, so it
fits 80 x 24 with its button."""
CUE_SECONDS = 0.6
"""How long the decision bar stands out when a person's turn comes after AI turns."""
YIELDS_FOR_REDRAW = 3
"""Turns of the event loop a table gives its widgets after a change (see `Changed`)."""
AFTER_FRAME = 2 / constants.MAX_FPS
"""Seconds after which the frame showing a change has been drawn."""
SECRET_KINDS = {Kind.PLAN}
"""Decisions other players must not see being made (the Supporter's cards)."""
STATUS_WIDTH = 78
"""The status bar's width inside its padding at 80 columns, before it is laid out."""
PRESENCE_EVERY = 1.0
"""Seconds between looks at who is at a shared table (its countdowns count seconds)."""


class TableScreen(UsesApp, Screen[None]):
    """A table, followed. Subclasses give the board, the option words and the status."""

    CSS_PATH = stylesheets("tables.tcss", "widgets.tcss")
    """The tables' layout and the dice and status widgets load with the first table."""

    BINDINGS = [
        Binding("1", "pick(0)", "Choose", key_display="1-9", id="table.pick1"),
        *(
            Binding(str(n), f"pick({n - 1})", show=False, id=f"table.pick{n}")
            for n in range(2, MAX_OPTIONS + 1)
        ),
        # at a game's end, in the place of `1-9 Choose` (nothing to choose then)
        Binding("a", "analysis", "Analysis", id="table.analysis"),
        # A game's end puts `n` where `space` was and `r` where `o` was (see `check_action`)
        Binding("space", "hurry", "Hurry", id="table.hurry"),
        Binding("n", "play_on", "Play on", id="table.play_on"),
        Binding("o", "toggle_odds", "Odds", id="table.odds"),
        Binding("r", "result", "Result", id="table.result"),
        Binding("l", "history", "Log", id="table.history"),
        Binding("t", "standings", "Ranks", id="table.standings", tooltip="The campaign standings"),
        Binding("f1,question_mark", "rules", "Rules", id="table.rules"),
        Binding("escape", "leave", "Leave", id="table.leave"),
        # at a shared table only; the chat panel's title names them. `/` has priority: it
        # moves the focus before the keys typed right behind it go anywhere
        Binding("slash", "chat", "Chat", show=False, priority=True, id="table.chat"),
        Binding("h", "chat_history", "Chat history", show=False, id="table.chat_history"),
    ]

    odds_shown: reactive[bool] = reactive(False, init=False)

    class Changed(Message):
        """The dealer has something new to show: events, a turn, a new game, a notice.
        Changes that come before the screen has looked are looked at together."""

    def __init__(
        self,
        dealer: Dealer,
        place: Place,
        *,
        label: str = "",
        owns_dealer: bool = False,
        chat: ChatSeat | None = None,
    ) -> None:
        super().__init__()
        self.dealer = dealer
        self.table: LiveTable = dealer.table
        self.setup = self.table.setup
        self.place = place
        """The seats whose choices are made at this screen (every person's, in hot-seat),
        and whether it is a player's or a spectator's."""
        self.label = label
        """Shown first in the status bar (a replay says which round it is)."""
        self.owns_dealer = owns_dealer
        """Whether the table lives only as long as this screen (a local one)."""
        self.chat = chat
        """This viewer's place in the table's chat: a shared table's only (hot-seat
        players share a keyboard and need none)."""
        self.narrate = Narrator(self.setup.names)
        self.number = 0
        """Which of the table's games this screen shows (0: none yet)."""
        self.narrated = 0
        """How many events of the game's log this screen has told."""
        self.noticed = len(dealer.notices)
        """Notices before this screen came are old news."""
        self.awaiting_human = False
        """Whether a person here is being asked to choose now."""
        self._live = False
        self._looking = False
        self._asked: Decision | None = None
        """The decision offered here now, if any."""
        self._asked_at: tuple[int, int] | None = None
        """When it was asked for: the game and the number of moves made before it (one
        decision object may be asked for again on a later turn)."""
        self._handing_off: tuple[int, int] | None = None
        self._result: ResultScreen | None = None
        """The result on show (or under a dialog opened over it), if any."""
        self._kept_result: ResultScreen | None = None
        """The result dialog this screen shows at each game's end (`show_result`)."""
        self._result_for = 0
        self._history: HistoryScreen | None = None
        self._since_asked = False
        """Whether an AI (or the stand-in) has played since a person here was asked."""
        self._handed_off_at = 0
        """How much of the log the last hot-seat hand-off told."""
        self._bindings_state: tuple[object, ...] = ()
        self._campaign_text: str | None = None
        self._unfollow = lambda: None
        self.gone = False
        """Set once the screen has left (popped, or replaced): it follows nothing more."""

    def post_message(self, message: Message) -> bool:
        """A table's screen is styled as its widgets mount, not restyled whole as it is
        first shown: `push_screen` asks for that, some 15 ms of a host's loop in one step
        for every table opened (a profile of the playing load); shown again later, it is
        restyled only if the app's CSS changed meanwhile (`resume_keeps_styles`). Nor is it
        laid out a second time by the resize it sends itself from its first layout
        (`own_resize`)."""
        resume_keeps_styles(self, message)
        if own_resize(self, message):
            return False
        return super().post_message(message)

    @property
    def game(self) -> Game[Any]:
        return self.table.game

    @property
    def shown_state(self) -> Any:
        """The game's state as this table's viewers have been shown it (what to draw)."""
        return self.dealer.state()

    @property
    def names(self) -> list[str]:
        return self.setup.names

    # --- what a game screen provides -------------------------------------------------------

    def compose_board(self) -> ComposeResult:
        """The game's board widgets."""
        yield from ()

    def clear_board(self) -> None:
        """A new game begins: nothing rolled, nothing called yet."""

    def sync_board(self, state: Any) -> None:
        """Draw the board's figures from the game's state as shown."""

    def show_event(self, event: Event, animate: bool) -> None:
        """Show one event on the board (roll a die: tumbling, if `animate`)."""

    def option_label(self, action: Action) -> str:
        return str(action)

    def odds_text(self, values: Sequence[float]) -> str:
        """What each option on offer is worth, in a line of the game's own words."""
        return "odds  " + "  ".join(f"{n}:{v:+.2f}" for n, v in enumerate(values, 1))

    def status(self, state: Any) -> str:
        """One line of where the game stands (round, set, turn)."""
        return ""

    def result_headline(self, state: Any) -> str:
        """Who won the game that is over, in a line."""
        return "It is over."

    def result_rows(self, state: Any) -> list[Content]:
        """Each seat's line on the result: name and the figures that decided it."""
        return [Content(name) for name in self.names]

    # --- layout and following --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Line(id="status-bar")
        if self.shared:
            yield Line(id="presence")
        with Horizontal(id="table-body"):
            # a campaign's panel under the board takes rows: its margins go (tables.tcss)
            with Vertical(id="board", classes="-campaign" if self.table.campaign else ""):
                yield from self.compose_board()
                yield Line(id="variants")
                if self.table.campaign:
                    yield Static(id="campaign-panel")
            if self.chat is None:
                yield NarrationLog(id="log")
            else:
                with Vertical(id="table-side"):
                    yield NarrationLog(id="log")
                    yield ChatPanel(self.chat, id="chat")
        yield DecisionBar(id="decision")
        yield TableFooter(show_command_palette=False)

    def on_mount(self) -> None:
        shown = next(self.query("#log").results(NarrationLog), None)
        if shown is None:  # taken down as it was put up (its session ending): nothing to do
            return
        self.bar = self.query_one(DecisionBar)
        self.log_widget = shown
        self.query_one("#variants", Line).text = Content(self.settings_line())
        if self.shared:
            self._presence = self.query_one("#presence", Line)
        self._unfollow = self.dealer.follow(self._changed, self.place)
        self.look()
        if self.shared:
            self.set_interval(PRESENCE_EVERY, self.show_presence)
        self.set_timer(AFTER_FRAME, self.cantina.settle_heap)  # once the table is on show

    def on_unmount(self) -> None:
        self.gone = True
        self._unfollow()
        result = self._kept_result
        if result is not None and result not in self.app.screen_stack:
            self.app.uninstall_screen(result)  # taken down with its table's screen
            result.remove()
        if self.owns_dealer:
            self.dealer.close()

    @property
    def shared(self) -> bool:
        """A table other people share (over SSH): one this screen does not own."""
        return not self.owns_dealer

    def presence_line(self) -> Content:
        """Who is away and how long before the stand-in plays for them, a guest's own
        rejoin code, how many watch: the table's people, in a line (at 80 columns, all
        three fit with one player away)."""
        now = asyncio.get_running_loop().time()
        parts: list[Content] = []
        for away in self.dealer.countdowns(now):
            if away.standing_in:
                what = "plays their seat"
            elif away.left > 0:
                what = f"plays in {math.ceil(away.left)} s"
            else:
                what = "plays their next turn"
            parts.append(Content.assemble((away.name, "bold"), f" is away: the stand-in {what}"))
        if self.place.rejoin:
            parts.append(Content.assemble("your rejoin code ", (self.place.rejoin, "bold")))
        watching = len(self.dealer.spectators())
        if watching:
            parts.append(Content(f"{watching} watching"))
        return Content(" · ").join(parts)

    def show_presence(self) -> None:
        if not self.gone:
            self._presence.text = self.presence_line()

    def _changed(self) -> None:
        if not self._looking:
            self._looking = True
            self.post_message(self.Changed())

    async def on_table_screen_changed(self, message: Changed) -> None:
        """Show what changed, then let the widgets it changed tell the screen so before
        the screen looks for something to draw. Each widget asks to be redrawn from its
        own task; without the wait the screen drew a frame with the first few and the
        rest (the footer's keys, often) up to two frame periods later. Two turns were
        enough with this Textual; a third is to spare."""
        self._looking = False
        self.look()
        for _ in range(YIELDS_FOR_REDRAW):
            await asyncio.sleep(0)

    def look(self) -> None:
        """Catch up with the table: a new game, the events shown since the last look,
        the board as it now stands, the turn, the notices."""
        dealer = self.dealer
        if dealer.failure is not None and self.owns_dealer:
            raise dealer.failure  # a local table that stopped: the app ends, saying why
        if self.table.number != self.number:
            self.begin_game()
        shown = dealer.shown
        if shown > self.narrated:
            events = self.table.log[self.narrated : shown]
            self.narrated = shown
            self.tell(events, animate=self._live and not dealer.hurrying)
        self._live = True
        if self.place.player and not dealer.holds(self.place):
            self.only_watch()
        self.sync()
        if self.shared:
            self.show_presence()
        self.follow_turn()
        for notice in dealer.notices[self.noticed :]:
            # Notices hold players' names: never markup (a name could be "[@click=…]").
            self.notify(notice, markup=False)
        self.noticed = len(dealer.notices)

    def begin_game(self) -> None:
        """The table's next game (or the first this screen sees): a new story, drawn
        from its start; a result still on show for the last one goes."""
        self.number = self.table.number
        self.narrated = 0
        self._live = False  # what happened before this screen looked is shown at once
        self._asked = self._asked_at = self._handing_off = None
        self._handed_off_at = 0
        self.awaiting_human = False
        result, self._result = self._result, None
        if result is not None and result in self.app.screen_stack:
            if result.is_current:
                result.dismiss(None)
            else:
                self.pop_until_active()
        self.log_widget.clear()
        self.log_widget.write(self.opening_line())
        self.clear_board()

    def only_watch(self) -> None:
        """This screen's seat is played from another connection now (a guest's, taken back
        by its rejoin code while this one still followed the table): from here on it is a
        spectator's, at once. No rejoin code (the seat's, in the other's hands now), no
        choices (the dealer refuses them), no `n` or hurry, the footer and chat lines a
        spectator's; the table has told why (`SharedTable.hand_seats`). The dealer keeps
        this screen as it came (following again would count as a screen coming to the
        table)."""
        self.place = Place(frozenset(), player=False, who=self.place.who)
        self._asked = self._asked_at = self._handing_off = None
        self.awaiting_human = False
        self.odds_shown = False
        self._bindings_state = ()  # the keys change whatever the turn: `update_bindings`
        if self.chat is not None:
            self.chat.watching = True  # its lines are marked as a spectator's
        result = self._kept_result
        if result is not None and result.is_mounted:
            result.only_watch(self.place)

    def tell(self, events: Sequence[Event], *, animate: bool) -> None:
        lines = []
        for event in events:
            line = self.narrate(event)
            if line:
                lines.append(line)
            self.show_event(event, animate)
        self.log_widget.write_lines(lines)
        if self._history is not None and self._history.is_attached:
            self._history.add(lines)

    def sync(self) -> None:
        state = self.shown_state
        bar = self.query_one("#status-bar", Line)
        parts = [part for part in (self.label, *self.status(state).split(" · ")) if part]
        bar.text = Content(fit_parts(parts, bar.content_region.width or STATUS_WIDTH))
        if self.table.campaign:
            text = self.table.status()
            if text != self._campaign_text:  # a new layout only when it changes
                self._campaign_text = text
                self.query_one("#campaign-panel", Static).update(Content(text))
        self.sync_board(state)

    def follow_turn(self) -> None:
        """Say whose turn it is, and offer a person here their choices."""
        dealer = self.dealer
        turn = dealer.turn
        if dealer.closed:
            self._idle(Content("This table has closed. Esc leaves."))
        elif turn.kind == ASKING and turn.decision is not None:
            decision = turn.decision
            name = self.setup.seats[decision.seat].name
            at = self._now()
            if decision.seat not in self.place.seats:
                wait = f" to {decision.kind}…"
                self._idle(Content.assemble("Waiting for ", (name, "bold"), wait))
            elif at != self._asked_at and at != self._handing_off:
                if decision.kind in SECRET_KINDS and len(self.place.seats) > 1:  # hot-seat
                    self._idle(Content.assemble("Waiting for ", (name, "bold"), "…"))
                    self._handing_off = at
                    self.app.push_screen(
                        HandOffScreen(
                            name,
                            "a secret choice is about to be made",
                            self.since_hand_off(),
                            self.leaving_question(),
                        ),
                        lambda ready: self._handed_off(decision, at, ready),
                    )
                else:
                    self.offer(decision)
        elif turn.kind == THINKING and turn.seat is not None:
            name = self.setup.seats[turn.seat].name
            if dealer.replay is not None:
                pending = self.game.pending
                doing = f" to {pending.kind}…" if pending is not None else "…"
                self._idle(Content.assemble("Replay: ", (name, "bold"), doing))
            else:
                self._since_asked = True
                temperament = self.table.ai.temperaments[turn.seat]
                who = temperament.name if temperament is not None else "AI"
                named = "" if who == name else f" ({who})"  # "Bold (Bold)" says it twice
                self._idle(Content.assemble((name, "bold"), f"{named} is thinking…"))
        elif turn.kind == SHOWING:
            if self.awaiting_human:  # a person here has just chosen
                self._idle(Content(""))
        elif turn.kind == REPLAYED:
            self._idle(Content("The replay is over. Esc goes back."))
        elif turn.kind == OVER:
            unit = GAMES[self.setup.game].unit
            keys = "n plays on, r shows the result" if self.place.player else "r shows the result"
            self._idle(Content(f"The {unit} is over: {keys}, esc leaves."))
            if self._result_for != self.number:  # once a game, for every viewer
                self._result_for = self.number
                self.set_timer(AFTER_FRAME, self.show_result)  # the last move drawn first
        self.update_bindings()

    def _now(self) -> tuple[int, int]:
        return (self.table.number, len(self.table.moves))

    def _idle(self, prompt: Content) -> None:
        """Nobody here is asked: say `prompt`, the options blank."""
        self.awaiting_human = False
        self._asked = None
        self.bar.show(prompt)

    def _handed_off(self, decision: Decision, at: tuple[int, int], ready: bool | None) -> None:
        self._handing_off = None
        if ready is False:  # Esc on the hand-off, and sure (it asked)
            self.leave(ask=False)
            return
        if self.dealer.turn.kind == ASKING and self._now() == at:
            self.offer(decision)
            self.update_bindings()

    def offer(self, decision: Decision) -> None:
        self.awaiting_human = True
        self._asked = decision
        self._asked_at = self._now()
        name = self.setup.seats[decision.seat].name
        prompt = Content.assemble((name, "bold"), f", {decision.kind}:")
        labels = [self.option_label(option) for option in decision.options]
        self.bar.show(prompt, labels, self.odds_line())
        if self._since_asked:  # the AI seats have played: a person's turn comes round
            self._since_asked = False
            self.cue()

    def cue(self) -> None:
        """Say that it is a person's turn: the bar stands out a moment (visible without
        colour: it is drawn reversed; not with animation off) and, if the player keeps
        it on, the bell rings."""
        flash = CUE_SECONDS * self.cantina.animation_speed
        if flash > 0:
            self.bar.cue(True)
            self.set_timer(flash, lambda: self.bar.cue(False))
        if self.cantina.preferences.bell:
            self.app.bell()

    def since_hand_off(self) -> list[str]:
        """What everyone saw since the last hand-off (the cards shown, the battles), for
        the next one, which covers the table: its last lines, as many as fit."""
        told = [line for line in map(self.narrate, self.table.log[self._handed_off_at :]) if line]
        self._handed_off_at = len(self.table.log)
        kept: list[str] = []
        rows = 0
        for line in reversed(told):  # counted as wrapped, so the button still fits 24 rows
            rows += len(wrap_plain(line, HAND_OFF_TEXT_WIDTH))
            if rows > HAND_OFF_LINES:
                break
            kept.append(line)
        return kept[::-1]

    def settings_line(self) -> str:
        """The table's settings and the variants in force, in a line, from the registry:
        each number with its title, each yes-or-no setting by its title when on; one that
        only sets the start (the starting bank, on the board already) when changed."""
        settings = self.setup.settings
        parts = []
        for setting in GAMES[self.setup.game].choices():
            value = getattr(settings, setting.name)
            if setting.start and value == setting.default:
                continue
            if setting.kind is bool:
                if value:
                    parts.append(setting.title)
            else:
                parts.append(f"{setting.title} {value}")
        return " · ".join(parts)

    def opening_line(self) -> str:
        """The story's first line: the seed, but not at a shared table. The seed deals every
        roll to come, this game's and the next ones' (the dice go on from game to game),
        and the AI's choices: a player who had it could play ahead at home and know them."""
        if self.shared:
            return "The dice's seed stays the table's secret: it would tell the rolls to come."
        return self.seed_line()

    def seed_line(self) -> str:
        """The seed this game's dice came from, so a good game can be played again (none
        at a shared table: `opening_line`)."""
        if self.shared:
            return ""
        seed = self.table.setup.seed  # a campaign's next round has a seed of its own
        if self.table.campaign or self.dealer.replay is not None:  # a campaign's round
            return f"Seed {seed} (this {self.unit}'s own, from the campaign's seed)."
        again = play_command(self.setup) if self.table.number == 1 else None
        if again is not None:  # its seats and settings too: the seed alone seats others
            return f"Seed {seed}: `{again}` deals these dice again."
        if self.table.number == 1:
            return f"Seed {seed}."
        unit = GAMES[self.setup.game].unit
        return f"Seed {seed}, {unit} {self.table.number} at this table."

    def update_bindings(self) -> None:
        """Tell the footer only when which keys can act changes: that depends only on
        whether a person here is choosing and whether the game goes on (keys 2-9 are not
        shown, and Textual asks `check_action` again when a key is pressed, so a new
        number of options needs nothing). The footer then dims or lights its keys in place
        (`TableFooter`)."""
        state = (self.awaiting_human, self.dealer.turn.kind in (OVER, REPLAYED))
        if state != self._bindings_state:
            self._bindings_state = state
            self.refresh_bindings()

    def odds_line(self) -> str:
        if not (self.odds_shown and self.awaiting_human):
            return ""
        return self.odds_text(self.table.ai.values(self.game))

    def watch_odds_shown(self) -> None:
        self.bar.show_odds(self.odds_line())

    # --- the end of a game -----------------------------------------------------------------

    def show_result(self) -> None:
        if self.number != self.table.number or self.dealer.turn.kind != OVER:
            return  # the next game began meanwhile
        result = self._kept_result
        if result is not None and result in self.app.screen_stack:
            return  # on show already
        if result is None:
            result = self._kept_result = ResultScreen(self.table)
            # installed, so that Textual keeps it when it closes (`on_unmount` lets it go)
            self.app.install_screen(result, name=f"result of {id(self)}")
        state = self.game.state
        number = self.number
        shared = self.chat is not None  # a hot-seat table has no chat
        self._result = result.for_game(
            self.place,
            self.result_headline(state),
            self.result_rows(state),
            self.seed_line(),
            chat=(lambda: self.chat_from_result(number)) if shared else None,
            chat_history=self.action_chat_history if shared else None,
        )
        self.app.push_screen(result, lambda choice: self.after_result(choice, number))

    def after_result(self, choice: str | None, number: int) -> None:
        """What the person chose on the result of game `number` (the screen may already
        follow the next one: the dialog's answer can come after the news of it)."""
        if number == self.number:
            self._result = None
        if choice == AGAIN:
            self.play_on(number)
        elif choice == BACK:
            self.leave(ask=False)
        elif choice == LOG and number == self.number:
            self.show_history(then=self.show_result)
        elif choice == ANALYSIS and number == self.number:
            self.show_review(then=self.show_result)

    def chat_from_result(self, number: int) -> None:
        """`/` on the result of game `number`, which has just closed: the chat line has the
        keys now, and leaving it (Esc) brings that result back, unless the next game has
        begun meanwhile."""
        self.query_one("#chat", ChatPanel).start(
            then=lambda: self.show_result() if number == self.number else None
        )

    def show_review(self, then: Callable[[], None] | None = None) -> None:
        """The Review of this game: each seat's skill and luck, each decision's cost."""
        review = ReviewScreen(record_of(self.table), list(self.setup.names), self.unit)
        self.app.push_screen(review, lambda _: then() if then else None)

    def play_on(self, number: int) -> None:
        """The game after game `number`, for everyone at the table (begun once: if
        another player began it first, this screen is already following it)."""
        try:
            self.dealer.next_game(self.place, after=number)
        except IllegalAction:
            return  # a spectator's screen offers no next game
        except ValueError as err:
            campaign = campaign_of(self.table)
            if campaign is not None and campaign.over:
                # Its last round, or it cannot go on (VF-11): where the campaign ended.
                self.app.switch_screen(StandingsScreen(campaign))
                return
            self.notify(str(err), title="Cannot play on", severity="warning")

    # --- keys and buttons ------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """True: the key acts now. None: it cannot act now, and does nothing, but stays in
        the footer, dimmed, so the footer keeps the same keys on every turn (a change of
        keys lays the screen out again; see `TableFooter`). False: not at this table, or
        not for this viewer (a spectator or a replay chooses nothing).

        At a game's end `a`, `n` and `r` take the places of `1-9`, `space` and `o`, which
        cannot act then: the footer swaps those keys where they are (`TableFooter`), and
        the keys still fit 80 columns (with both pairs shown, "esc Leave" was cut off).
        `1-9 Choose` went on showing, dimmed, after the end, with nothing left to choose."""
        over = self.dealer.turn.kind in (OVER, REPLAYED)
        if action in ("pick", "toggle_odds", "analysis"):
            if not self.place.seats:
                return False  # nobody here ever chooses: no dead keys in the footer
            if action == "analysis":
                return over  # `1-9` in its place while the game goes on
            decision = self._asked
            if action == "pick" and over:
                return False  # `a` in its place
            if action == "toggle_odds":
                if over:
                    return False  # `r` in its place
                return True if self.awaiting_human else None
            can = (
                self.awaiting_human
                and decision is not None
                and int(str(parameters[0])) < len(decision.options)
            )
            return True if can else None
        if action == "hurry":
            if not self.place.player or over:
                return False  # over: `n` in its place
            return True if not self.awaiting_human else None
        if action == "play_on":
            return self.place.player and self.dealer.turn.kind == OVER
        if action == "result":
            return self.dealer.turn.kind == OVER
        if action == "standings":
            return campaign_of(self.table) is not None
        if action == "chat":  # not while typing: then `/` is a character of the line
            return self.chat is not None and chat_key_acts(self)
        if action == "chat_history":
            return self.chat is not None
        return True

    def action_pick(self, index: int) -> None:
        decision = self._asked
        if self.awaiting_human and decision is not None and index < len(decision.options):
            self._idle(Content(""))
            self.update_bindings()
            try:
                self.dealer.pick(self.place, decision.options[index])
            except IllegalAction:
                self.look()  # the table moved on meanwhile: show where it is

    def on_decision_bar_chosen(self, message: DecisionBar.Chosen) -> None:
        self.action_pick(message.index)

    def action_hurry(self) -> None:
        for die in self.query(Die):
            die.finish()
        self.dealer.hurry(self.place)

    def action_toggle_odds(self) -> None:
        self.odds_shown = not self.odds_shown

    def action_rules(self) -> None:
        self.cantina.action_rules(self.setup.game)

    def action_history(self) -> None:
        self.show_history()

    def show_history(self, then: Callable[[], None] | None = None) -> None:
        """The whole story of the game so far, which goes on while it is open; `then`
        runs once it is closed (the result it was opened from, say)."""
        title = f"{GAMES[self.setup.game].title}: the story of this {self.unit}"
        self._history = HistoryScreen(title, self.log_widget.lines)
        self.app.push_screen(self._history, lambda _: then() if then else None)

    @property
    def unit(self) -> str:
        return GAMES[self.setup.game].unit

    def action_play_on(self) -> None:
        self.play_on(self.number)

    def action_result(self) -> None:
        self.show_result()

    def action_analysis(self) -> None:
        """The Review of the game just over, as the result's `a` opens it."""
        self.show_review()

    def action_standings(self) -> None:
        campaign = campaign_of(self.table)
        if campaign is not None:
            self.app.push_screen(StandingsScreen(campaign))

    def action_chat(self) -> None:
        self.query_one("#chat", ChatPanel).start()

    def action_chat_history(self) -> None:
        self.query_one("#chat", ChatPanel).show_history()

    def action_leave(self) -> None:
        if self.end_unseen():  # Esc again, on the result or the table, leaves
            self.action_hurry()
            return
        self.leave(ask=True)

    def end_unseen(self) -> bool:
        """Whether this player's game is over but its end is still being shown here, its
        result not up yet: leaving then (an Esc right after the last pick) never told how
        it ended, and a campaign deals its next round at once, so nothing ever would."""
        return (
            self.place.player
            and self.game.pending is None
            and self._result_for != self.number
            and self.dealer.replay is None
            and not self.dealer.closed
        )

    def leave(self, *, ask: bool) -> None:
        """Leave the table; when a game is under way and leaving it loses or changes
        something, ask first (if `ask`), saying what. A campaign whose last save failed
        tries again first, and says what leaving would lose if it still cannot."""
        if self.table.campaign and self.place.player:
            self.cantina.leave_campaign(self._ask_leave if ask else self._go, self._go)
        elif ask:
            self._ask_leave()
        else:
            self._go()

    def _go(self) -> None:
        self.dismiss()

    def _ask_leave(self) -> None:
        question = self.leaving_question()
        if question is None:
            self.dismiss()
            return
        self.app.push_screen(ConfirmScreen(question), self._leave_if)

    def _leave_if(self, sure: bool | None) -> None:
        if sure:
            self.dismiss()

    def leaving_question(self) -> str | None:
        """What to ask before leaving, or None when nothing is at stake (a spectator, a
        replay, a game that is over)."""
        if not self.place.player or self.dealer.replay is not None or self.dealer.closed:
            return None
        if self.game.pending is None:
            return None
        if self.table.campaign:
            return (
                "Leave the table? The campaign is saved after every decision: "
                "it goes on from here when you resume it."
            )
        if not self.owns_dealer:  # a shared table goes on without you
            # A guest back from a new connection needs the seat's rejoin code, and a
            # guest who quits is left with a terminal that no longer shows it.
            code = (
                f" Your rejoin code is {self.place.rejoin}: the back room's code field"
                " takes it from a new connection."
                if self.place.rejoin
                else ""
            )
            return (
                "Leave the table? Your seat waits for you; if you are away long, the "
                f"stand-in plays it.{code}"
            )
        return f"Leave the table? This {self.unit} is not over, and it will be lost."


def fit_parts(parts: Sequence[str], width: int) -> str:
    """`parts` joined by " · ", the last ones left out (the status's least needed: a
    legend, a phase) rather than a part cut mid-word where the line is too narrow (a
    replay's label before a long status at 80 columns lost its last words)."""
    kept = list(parts)
    while len(kept) > 1 and cell_len(" · ".join(kept)) > width:
        kept.pop()
    return " · ".join(kept)


def campaign_of(table: LiveTable) -> Campaign | None:
    """The campaign a table plays a round of: its keeper, when that is a campaign."""
    return table.keeper if isinstance(table.keeper, Campaign) else None
