"""What every game's table screen shares: the log, the decision bar, AI pacing, hot-seat.

A table screen renders the rules core's state and narrates its events; every choice, a
human's by key or mouse or an AI's from a worker thread, is submitted to the `LiveTable`,
which applies it and tells every screen watching (here, or over SSH). The game screens
(`screens/vigo.py`, `valdes.py`, `victim.py`) add a board and the words for each option;
no screen decides a rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual import constants
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from cantina.app import stylesheets
from cantina.games.events import Event
from cantina.games.table import Action, Decision, Game, Kind, Move
from cantina.live import LiveTable
from cantina.narration import Narrator
from cantina.seating import TableSetup
from screens.drawing import KeptDrawing, plain_rows
from screens.footer import TableFooter
from screens.options import OptionGrid

if TYPE_CHECKING:
    from cantina.campaign.series import Campaign

MAX_OPTIONS = 9
YIELDS_FOR_REDRAW = 3
"""Turns of the event loop a table gives its widgets after a move (see `Played`)."""
AFTER_FRAME = 2 / constants.MAX_FPS
"""Seconds after which the frame showing a change has been drawn (see `later`)."""
SECRET_KINDS = {Kind.PLAN}
"""Decisions other players must not see being made (the Supporter's cards)."""


class Line(KeptDrawing, Widget):
    """One line of text that repaints without asking for a new layout (unlike `Static`),
    so the status, prompt and odds lines cost a redraw of themselves and nothing more;
    lines it has shown before (a prompt, a seat's name and role) are not drawn again."""

    DEFAULT_CSS = "Line { height: 1; }"

    text: reactive[Content] = reactive(Content(""), layout=False)

    def render(self) -> Content:
        return self.text

    def drawing_key(self) -> Content:
        return self.text


class NarrationLog(Widget):
    """The table's running commentary: the newest lines, wrapped, filling the panel.

    It draws only the tail that fits, and new lines repaint it without a new layout (a
    scrolling log resizes its virtual canvas on every line, which lays out the whole
    screen); the whole story is one key away in the history view. Each line is wrapped
    and drawn once and kept while it can still be on show (until the width or the styles
    change), so a new line costs the drawing of that line alone, not of the whole panel,
    and a long game does not keep the drawing of every line it ever had."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[str] = []
        self._drawn: dict[int, list[Strip]] = {}
        """The rows of recent lines as drawn at `_drawn_width`, by line number."""
        self._drawn_width = -1
        self._rows: list[Strip] = []
        """The rows on show, from the last `render_lines`."""

    def write(self, line: str) -> None:
        self.lines.append(line)
        self.refresh()

    def write_lines(self, lines: Sequence[str]) -> None:
        """Several lines with one repaint."""
        if lines:
            self.lines.extend(lines)
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()  # a new theme or class: draw every line again

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
        self._odds = Line(id="odds")
        self._options = OptionGrid(id="options")
        yield self._prompt
        yield self._options
        yield self._odds

    def show(self, prompt: Content, labels: Sequence[str] = (), odds: Sequence[str] = ()) -> None:
        """Ask with `labels` as the options, or, with none, only say `prompt` (the options
        on show go blank)."""
        self._prompt.text = prompt
        self._options.show(labels)
        self.show_odds(odds)

    def offered(self) -> list[str]:
        """The labels of the options on show, numbered as on screen (none while nobody
        here is choosing)."""
        return [f"{n} {label}" for n, label in enumerate(self._options.labels, start=1)]

    def show_odds(self, odds: Sequence[str]) -> None:
        text = "   ".join(f"{n}: {value}" for n, value in enumerate(odds, start=1))
        self._odds.text = Content(f"odds  {text}" if odds else "")

    def on_option_grid_chosen(self, event: OptionGrid.Chosen) -> None:
        event.stop()
        self.post_message(self.Chosen(event.index))


class TableScreen(Screen[None]):
    """A game in progress. Subclasses give the board, the option words and the status."""

    CSS_PATH = stylesheets("tables.tcss", "widgets.tcss")
    """The tables' layout and the dice and status widgets load with the first table."""

    BINDINGS = [
        Binding("1", "pick(0)", "Choose", key_display="1-9", id="table.pick1"),
        *(
            Binding(str(n), f"pick({n - 1})", show=False, id=f"table.pick{n}")
            for n in range(2, MAX_OPTIONS + 1)
        ),
        Binding("space", "hurry", "Hurry", id="table.hurry"),
        Binding("o", "toggle_odds", "Odds", id="table.odds"),
        Binding("l", "history", "Log", id="table.history"),
        Binding("t", "standings", "Ranks", id="table.standings", tooltip="The campaign standings"),
        Binding("f1,question_mark", "rules", "Rules", id="table.rules"),
        Binding("escape", "leave", "Leave", id="table.leave"),
    ]

    odds_shown: reactive[bool] = reactive(False, init=False)

    class Played(Message):
        """The table applied a decision (from this screen or any other seat)."""

        def __init__(self, events: Sequence[Event]) -> None:
            super().__init__()
            self.events = events

    def __init__(
        self,
        table: LiveTable | TableSetup,
        *,
        seats: frozenset[int] | None = None,
        drives_ai: bool = True,
        replay: Sequence[Move] | None = None,
        label: str = "",
    ) -> None:
        super().__init__()
        self.table = table if isinstance(table, LiveTable) else LiveTable(table)
        self.setup = self.table.setup
        self.seats_here = (
            frozenset(i for i, seat in enumerate(self.setup.seats) if seat.human)
            if seats is None
            else seats
        )
        """The seats whose choices are made at this screen (all the people, in hot-seat)."""
        self.drives_ai = drives_ai
        """Whether this screen plays the AI seats (a shared table's owner does it instead)."""
        self.replay = list(replay) if replay is not None else None
        """Recorded moves to play again, paced like AI turns, instead of asking anyone."""
        self.label = label
        """Shown first in the status bar (a replay says which round it is)."""
        self.options = {"seats": self.seats_here, "drives_ai": drives_ai}
        """How this screen was set, for the screen of the table's next game."""
        self.ai = self.table.ai
        self.narrate = Narrator(self.setup.names)
        self.history: list[Event] = []
        self.awaiting_human = False
        self.hurrying = False
        self._over = False
        self._ai_timer = None
        self._bindings_state: tuple[object, ...] = ()
        self._campaign_text: str | None = None
        self._stop_listening = self.table.listen(
            lambda events: self.post_message(self.Played(events))
        )

    @property
    def game(self) -> Game[Any]:
        return self.table.game

    # --- what a game screen provides -------------------------------------------------------

    def compose_board(self) -> ComposeResult:
        """The game's board widgets."""
        yield from ()

    def sync_board(self) -> None:
        """Bring the board up to date with the game's state."""

    def show_event(self, event: Event) -> None:
        """React to one event on the board (roll a die, flash the pot)."""

    def option_label(self, action: Action) -> str:
        return str(action)

    def odds_text(self, value: float) -> str:
        return f"{value:+.2f}"

    def status(self) -> str:
        """One line of where the game stands (round, set, turn)."""
        return ""

    def result_screen(self) -> Screen[Any]:
        from screens.result import ResultScreen

        return ResultScreen(self.table, self.history)

    # --- layout and flow -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Line(id="status-bar")
        with Horizontal(id="table-body"):
            with Vertical(id="board"):
                yield from self.compose_board()
                if self.table.campaign:
                    yield Static(id="campaign-panel")
            yield NarrationLog(id="log")
        yield DecisionBar(id="decision")
        yield TableFooter(show_command_palette=False)

    def on_mount(self) -> None:
        self.narrate_events(self.game.opening_events)
        self.sync()
        self.call_after_refresh(self.advance)
        settle = getattr(self.app, "settle_heap", None)
        if settle is not None:
            self.set_timer(AFTER_FRAME, settle)  # once the table is on show

    def on_unmount(self) -> None:
        self.detach()

    def detach(self) -> None:
        """Stop following the table (it goes on to a new game, or this screen is leaving),
        so a screen on its way out never plays an AI turn."""
        self._stop_listening()
        self.drives_ai = False
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None

    @property
    def names(self) -> list[str]:
        return self.setup.names

    def sync(self) -> None:
        status = " · ".join(part for part in (self.label, self.status()) if part)
        self.query_one("#status-bar", Line).text = Content(status)
        if self.table.campaign:
            text = self.table.status()
            if text != self._campaign_text:  # a new layout only when it changes
                self._campaign_text = text
                self.query_one("#campaign-panel", Static).update(Content(text))
        self.sync_board()

    def narrate_events(self, events: Sequence[Event]) -> None:
        lines = []
        for event in events:
            self.history.append(event)
            line = self.narrate(event)
            if line:
                lines.append(line)
            self.show_event(event)
        self.query_one("#log", NarrationLog).write_lines(lines)

    def advance(self) -> None:
        """Ask whoever is to decide next: show a human the choices, or let an AI think."""
        decision = self.game.pending
        bar = self.query_one(DecisionBar)
        if self.replay is not None:
            self.awaiting_human = False
            if decision is None or not self.replay:
                bar.show(Content("The replay is over. Esc goes back."))
            else:
                name = self.setup.seats[decision.seat].name
                bar.show(Content.assemble("Replay: ", (name, "bold"), f" to {decision.kind}…"))
                self._ai_timer = self.later(self.ai_turn)
            self.update_bindings()
            return
        if decision is None:
            self.awaiting_human = False
            bar.show(Content("The game is over."))
            if not self._over:  # moves that land together each ask again: one result
                self._over = True
                self.later(self.show_result)  # a moment to see the last move first
            return
        seat = self.setup.seats[decision.seat]
        if not seat.human:
            self.awaiting_human = False
            bar.show(Content.assemble((seat.name, "bold"), f" ({seat.temperament}) is thinking…"))
            if self.drives_ai:
                self._ai_timer = self.later(self.ai_turn)
            self.update_bindings()
            return
        if decision.seat not in self.seats_here:
            self.awaiting_human = False
            bar.show(Content.assemble("Waiting for ", (seat.name, "bold"), f" to {decision.kind}…"))
            self.update_bindings()
            return
        self.hurrying = False
        if decision.kind in SECRET_KINDS and len(self.seats_here) > 1:  # hot-seat only
            bar.show(Content.assemble("Waiting for ", (seat.name, "bold"), "…"))
            self.app.push_screen(
                _handoff(seat.name, "a secret choice is about to be made"),
                lambda _ready: self.offer(decision),
            )
        else:
            self.offer(decision)

    def later(self, callback) -> Timer:
        """Run `callback` after the AI pace (so a person can follow), or, when hurrying or
        when the pace is 0, once the frame showing what has just changed is drawn; the
        timer, so a hurry can fire it early.

        Not `call_after_refresh`: a widget's request to be redrawn reaches the screen only
        when that widget is next idle, and a screen that finds nothing to draw before then
        runs its callbacks at once, so an AI's thinking (in a thread, holding the GIL half
        the time) would slow the drawing of the move before it, and a result screen would
        be built before the last move is shown. Two frame periods cover the next frame."""
        delay = 0 if self.hurrying else self.app.ai_pace
        return self.set_timer(max(delay, AFTER_FRAME), callback)

    def show_result(self) -> None:
        self.app.push_screen(self.result_screen())

    def offer(self, decision: Decision) -> None:
        self.awaiting_human = True
        name = self.setup.seats[decision.seat].name
        prompt = Content.assemble((name, "bold"), f", {decision.kind}:")
        labels = [self.option_label(option) for option in decision.options]
        self.query_one(DecisionBar).show(prompt, labels, self.odds_line())
        self.update_bindings()

    def update_bindings(self) -> None:
        """Tell the footer only when which keys can act changes: that depends only on
        whether a person here is choosing and whether the game goes on (keys 2-9 are not
        shown, and Textual asks `check_action` again when a key is pressed, so a new
        number of options needs nothing). The footer then dims or lights its keys in place
        (`TableFooter`)."""
        state = (self.awaiting_human, self.game.pending is None)
        if state != self._bindings_state:
            self._bindings_state = state
            self.refresh_bindings()

    def odds_line(self) -> list[str]:
        if not (self.odds_shown and self.awaiting_human):
            return []
        return [self.odds_text(v) for v in self.ai.values(self.game)]

    def watch_odds_shown(self) -> None:
        self.query_one(DecisionBar).show_odds(self.odds_line())

    def ai_turn(self) -> None:
        self._ai_timer = None
        if self.replay is not None:
            if self.replay and self.game.pending is not None:
                move = self.replay.pop(0)
                self.table.submit(move.seat, move.action)
            return
        self.run_worker(self._think, thread=True, exclusive=True, group="ai", name="ai-choice")

    def _think(self) -> tuple[int, Action]:
        """In a worker thread: the AI's choice. Only the table's dice change meanwhile, and
        nothing else touches the game until the choice is played on the UI thread."""
        decision = self.game.pending
        return decision.seat, self.table.ai_move()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != "ai-choice":
            return
        if event.state is WorkerState.SUCCESS:
            seat, action = event.worker.result
            decision = self.game.pending
            if decision is not None and decision.seat == seat:  # not overtaken meanwhile
                self.play(seat, action)
        elif event.state is WorkerState.ERROR:
            self.notify(f"The AI failed: {event.worker.error}", severity="error")

    def play(self, seat: int, action: Action) -> None:
        """Submit a choice; the table tells every screen, this one included (`Played`)."""
        self.awaiting_human = False
        self.table.submit(seat, action)

    async def on_table_screen_played(self, message: Played) -> None:
        """Show the move, then let the widgets it changed tell the screen so before the
        screen looks for something to draw. Each widget asks to be redrawn from its own
        task; without the wait the screen drew a frame with the first few and the rest
        (the footer's keys, often) up to two frame periods later. Two turns were enough
        with this Textual; a third is to spare."""
        self.narrate_events(message.events)
        self.sync()
        self.advance()
        for _ in range(YIELDS_FOR_REDRAW):
            await asyncio.sleep(0)

    # --- keys and buttons ------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """True: the key acts now. None: it cannot act now, and does nothing, but stays in
        the footer, dimmed, so the footer keeps the same keys on every turn (a change of
        keys lays the screen out again; see `TableFooter`). False: not at this table."""
        if action == "pick":
            decision = self.game.pending
            can = (
                self.awaiting_human
                and decision is not None
                and int(parameters[0]) < len(decision.options)
            )
            return True if can else None
        if action == "hurry":
            return True if not self.awaiting_human and self.game.pending is not None else None
        if action == "toggle_odds":
            return True if self.awaiting_human else None
        if action == "standings":
            return campaign_of(self.table) is not None
        return True

    def action_pick(self, index: int) -> None:
        decision = self.game.pending
        if self.awaiting_human and decision is not None and index < len(decision.options):
            self.play(decision.seat, decision.options[index])

    def on_decision_bar_chosen(self, message: DecisionBar.Chosen) -> None:
        self.action_pick(message.index)

    def action_hurry(self) -> None:
        self.hurrying = True
        for die in self.query(".die"):
            finish = getattr(die, "finish", None)
            if finish:
                finish()
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self.ai_turn()

    def action_toggle_odds(self) -> None:
        self.odds_shown = not self.odds_shown

    def action_rules(self) -> None:
        self.app.action_rules(self.setup.game)

    def action_history(self) -> None:
        from screens.dialogs import HistoryScreen

        self.app.push_screen(HistoryScreen(self.query_one("#log", NarrationLog).lines))

    def action_standings(self) -> None:
        from screens.standings import StandingsScreen

        campaign = campaign_of(self.table)
        if campaign is not None:
            self.app.push_screen(StandingsScreen(campaign, closing=False))

    def action_leave(self) -> None:
        self.app.pop_screen()


def campaign_of(table: LiveTable) -> Campaign | None:
    """The campaign a table plays a round of: its keeper, when that is a campaign."""
    from cantina.campaign.series import Campaign

    return table.keeper if isinstance(table.keeper, Campaign) else None


def _handoff(name: str, what: str) -> Screen[bool]:
    from screens.dialogs import HandOffScreen

    return HandOffScreen(name, what)


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
                    f" {role:<12}",
                    detail,
                )
            )
        return Content("\n").join(lines)

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(len(self.rows), 1)
