"""The back room, for players over SSH: the shared tables, a new table, a join code.

The state lives in `cantina.lobby` (one `Lobby` for the whole host); these screens read
it twice a second and change it only through its methods. Player names come from
strangers' SSH clients, so they are shown as `Content`, never parsed as markup.
"""

from __future__ import annotations

import secrets
from typing import Any, cast

import msgspec
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from cantina.ai.temperament import temperaments
from cantina.campaign.errors import CampaignError
from cantina.chat import ChatSeat
from cantina.games import GAMES
from cantina.lobby import Lobby, Player, SharedTable
from cantina.lobby.codes import CODE_LENGTH, REJOIN_LENGTH
from cantina.seating import TableSetup
from screens.chat import ChatLines, ChatPanel, chat_key_acts
from screens.drawing import KeptDrawing
from screens.footer import CantinaFooter
from screens.lobby_help import LobbyHelpScreen
from screens.menu import BackRoomMenuScreen
from screens.services import HostedServices
from screens.setup import HUMAN, Choice, SetupScreen
from screens.textual_compat import keep_full_frames, resume_keeps_styles

REFRESH = 0.5
"""Seconds between looks at the lobby's state (it changes in other sessions)."""
KEPT_SETUP = "cantina-kept-setup"
"""The name the lobby installs its kept setup screen under (`LobbyScreen.action_new`)."""
NO_CAMPAIGN = (
    "No campaign of yours with a seat for a person: Esc, then m and c (New campaign) starts one."
)
"""What `c` lists when there is nothing to set, and how to make something (it said only
the first half)."""
DRAWN_FROM_CACHE = (KeptDrawing.render_lines, ChatLines.render_lines)
"""The back room's own widgets that draw their rows from their styles cache, as Textual's
do (see `keep_full_frames`): the footer's keys and the chat's lines."""

NAMES_WIDTH = 50
"""Columns of names in a line of who is here (it stays one line at 80 columns); the rest
are counted."""


def sentence(err: Exception) -> str:
    """A lobby's refusal (worded to be joined into other words: "that table is already
    playing; you may watch it") as a notice reads: a capital, a full stop."""
    text = str(err)
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


SUMMARY_WIDTH = 31
"""Columns of a table's summary in the table list; a longer one wraps, at its commas."""
SUMMARY_INDENT = 4 + 2 + 13
"""Where the summary's column begins: after the code and the game's title."""


def table_line(table: SharedTable) -> Content:
    """A table's entry in the list: its code, game, summary and creator. A summary too
    long for its column goes on, in the column, on the lines below (it ran on past the
    column's width at 80 columns, its creator pushed out of sight)."""
    first, *rest = summary_lines(table.summary(), SUMMARY_WIDTH)
    line = Content.assemble(
        (table.code, "bold"),
        f"  {GAMES[table.setup.game].title:<13}",
        f"{first:<{SUMMARY_WIDTH}}  ",
        "by ",
        table.creator.name,
    )
    for more in rest:
        line += Content("\n" + " " * SUMMARY_INDENT + more)
    return line


def summary_lines(summary: str, width: int) -> list[str]:
    """`summary` ("2/2 seated, 10 watching, playing") in lines of at most `width`, broken
    at its commas (a part longer than a line is cut, with an ellipsis)."""
    lines: list[str] = []
    for part in summary.split(", "):
        if lines and len(lines[-1]) + len(", " + part) <= width:
            lines[-1] += ", " + part
            continue
        lines.append(part if len(part) <= width else part[: width - 1] + "…")
    return lines or [""]


def names_line(names: list[str], width: int = NAMES_WIDTH) -> str:
    """As many names as fit in `width`, then how many more: a line that stays a line
    with a crowd (at least one name is shown)."""
    shown: list[str] = []
    for name in names:
        if shown and len(", ".join([*shown, name])) > width:
            break
        shown.append(name)
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def people_line(lobby: Lobby) -> Content:
    """Who is connected to the host now (names from strangers' clients: never markup)."""
    names = [p.name for p in lobby.here_now()]
    return Content(f"Here now ({len(names)}): {names_line(names)}")


def table_people(lobby: Lobby, table: SharedTable) -> Content:
    """Who sits at a table (away or not) and who watches it, in a line."""
    seated = [table.seat_label(seat) for seat in sorted(table.seated)]
    watching = [lobby.name_of(who) for who in table.watching()]
    line = f"{table.code}: " + (names_line(seated, 32) + " seated" if seated else "nobody seated")
    if watching:
        line += f"; {names_line(watching, 16)} watching"
    return Content(line)


class HostedScreen(Screen[Any]):
    """What the lobby's screens share: the app's lobby and player (their stylesheet,
    styles/lobby.tcss, loads with the hosted app)."""

    @property
    def hosted(self) -> HostedServices:
        return cast("HostedServices", self.app)

    def post_message(self, message: Message) -> bool:
        resume_keeps_styles(self, message)  # a new session's lobby: styled once
        return super().post_message(message)

    @property
    def lobby(self) -> Lobby:
        assert self.hosted.lobby is not None
        return self.hosted.lobby

    @property
    def player(self) -> Player:
        assert self.hosted.player is not None
        return self.hosted.player


class CodeField(Input):
    """The back room's join-code field (`j`): as from the chat's line, Esc gives the keys
    back to the table list. The field's own binding, so it comes and goes with the focus,
    in the same change of the screen's keys (a binding of the screen's that only the focus
    enables changed them a second time, after the footer had dimmed the letter keys in
    place, and the footer made every key anew: `CantinaFooter._dimmed_in_place`)."""

    BINDINGS = [Binding("escape", "leave", "Back to the list", show=False)]

    def action_leave(self) -> None:
        self.screen.query_one("#tables", OptionList).focus()


class LobbyScreen(HostedScreen):
    """The open tables; make one, join one by its code, or watch one."""

    def __init__(self) -> None:
        super().__init__()
        keep_full_frames(self, DRAWN_FROM_CACHE)  # shown again after every other screen

    BINDINGS = [
        # the help line names v, d and i, so the footer has room for the rest at 80 columns
        Binding("v", "new('vigo')", "New Vigo's Favor", id="lobby.vigo", show=False),
        Binding("d", "new('valdes')", "New Val-Des", id="lobby.valdes", show=False),
        Binding("i", "new('victim')", "New Victim!", id="lobby.victim", show=False),
        Binding("c", "campaign", "Campaign", id="lobby.campaign"),
        Binding("w", "watch", "Watch", id="lobby.watch"),
        Binding("j", "code", "Join by code", id="lobby.code"),
        Binding("m", "menu", "Play alone", id="lobby.menu"),
        Binding("q", "app.quit", "Quit", id="lobby.quit"),
        # The app's ctrl+q, here without a footer entry of its own beside `q Quit`.
        Binding("ctrl+q", "app.quit", "Quit", id="lobby.ctrl_quit", show=False, priority=True),
        # the chat panel's title names these (`/`: see TableScreen's)
        Binding("slash", "chat", "Chat", show=False, priority=True, id="lobby.chat"),
        Binding("h", "chat_history", "Chat history", id="lobby.chat_history", show=False),
        Binding("question_mark", "help", "Help", id="lobby.help", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby"):
            yield Static(Content("The back room: shared tables"), id="lobby-title")
            yield Static(id="lobby-you")
            yield Static(id="lobby-people")
            yield OptionList(id="tables")
            yield Static(id="table-people")
            with Horizontal(id="join-line"):
                yield Static("Join code ", classes="label")
                code = CodeField(
                    placeholder="ABCD",
                    id="code",
                    compact=True,
                    max_length=REJOIN_LENGTH,  # a table's code, or a guest's rejoin code
                    restrict=r"[A-Za-z0-9]*",
                )
                code.cursor_blink = False  # a blinking cursor is a frame a second, per player
                yield code
            yield Static(Content(self.help_line()), id="lobby-help")
            yield ChatPanel(
                ChatSeat(self.lobby.chat, self.player, self.hosted.muted),
                title="Chat: / to talk, h for all of it (and to mute someone)",
                id="chat",
            )
        yield CantinaFooter()

    def help_line(self) -> str:
        """What the keys above the chat do; a guest keeps no campaigns, so hears of none."""
        campaigns = "; c sets one of your campaigns. " if self.hosted.campaigns_allowed else "  "
        return (
            "Enter joins the table picked above. New table: v Vigo's Favor,"
            f" d Val-Des, i Victim!{campaigns}? helps."
        )

    def on_mount(self) -> None:
        self._shown: list[tuple[str, Content]] | None = None
        self._lines: tuple[Content, Content, Content] | None = None
        self.show_table_list()
        self.show_people()
        self.set_interval(REFRESH, self.show_tables)
        self.query_one("#tables", OptionList).focus()
        self.call_after_refresh(self.return_to_seat)

    def on_screen_resume(self) -> None:
        """Back from a table: the list has the focus, so Enter returns to the table; a
        campaign played alone is put away."""
        self.hosted.back_at(self)
        self.show_tables()  # not kept up while under a table (see show_tables)
        self.query_one("#tables", OptionList).focus()

    def return_to_seat(self) -> None:
        """A player coming back (a new connection, same key) goes straight to their seat."""
        table = self.lobby.table_of(self.player.identity)
        if table is not None and table.started:
            self.hosted.sit_at(table)

    def you_line(self) -> Content:
        """Who this player is; a guest's rejoin code while they have a seat."""
        if self.player.guest:
            table = self.lobby.table_of(self.player.identity)
            code = self.lobby.rejoin_code(table, self.player.identity) if table else None
            if table is not None and code:
                return Content.assemble(
                    "You are ",
                    (self.player.name, "bold"),
                    f" (a guest). Your rejoin code for table {table.code}: ",
                    (code, "bold"),
                )
            return Content.assemble("You are ", (self.player.name, "bold"), " (a guest)")
        short = self.player.identity.removeprefix("SHA256:")[:12]
        return Content.assemble("You are ", (self.player.name, "bold"), f"  (key {short}…)")

    def show_people(self) -> None:
        """The lines of who is here: you, everyone, the picked table's people."""
        table = self.picked()
        lines = (
            self.you_line(),
            people_line(self.lobby),
            table_people(self.lobby, table) if table is not None else Content(""),
        )
        if lines == self._lines:
            return
        self._lines = lines
        for name, line in zip(("#lobby-you", "#lobby-people", "#table-people"), lines, strict=True):
            self.query_one(name, Static).update(line)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_people()

    def show_tables(self) -> None:
        """The list and who is here, every REFRESH while the lobby is on show. Under a
        table it waits for the player's return: every session's lobby redoing every
        table's line twice a second was about 6% of a busy host's loop (16 playing)."""
        if not self.is_active:
            return
        self.show_table_list()
        self.show_people()

    def show_table_list(self) -> None:
        rows = [(t.code, table_line(t)) for t in self.lobby.open_tables()]
        if rows == self._shown:
            return
        if bool(rows) != bool(self._shown):  # `w` watches only a table there is
            self.refresh_bindings()  # (only then: the footer's keys cost ~7 ms to redo)
        self._shown = rows
        tables = self.query_one("#tables", OptionList)
        highlighted = tables.highlighted_option.id if tables.highlighted_option else None
        tables.clear_options()
        if not rows:
            tables.add_option(Option(Content("No tables yet: v, d or i sets one."), disabled=True))
            return
        tables.add_options([Option(line, id=code) for code, line in rows])
        codes = [code for code, _ in rows]
        tables.highlighted = codes.index(highlighted) if highlighted in codes else 0

    def picked(self) -> SharedTable | None:
        option = self.query_one("#tables", OptionList).highlighted_option
        return self.lobby.find(option.id) if option is not None and option.id else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        table = self.lobby.find(event.option.id or "")
        if table is not None:
            self.join(table)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            return  # Enter in the empty field (again after a wrong code): nothing sent
        if len(event.value.strip()) == REJOIN_LENGTH:
            self.rejoin(event.input)
            return
        table = self.lobby.find(event.value) if len(event.value.strip()) == CODE_LENGTH else None
        if table is None:
            # What was typed is shown as it is: never markup.
            self.notify(
                f"No table has the code {event.value.upper()!r}.", severity="warning", markup=False
            )
            return
        event.input.value = ""
        self.join(table)

    def join(self, table: SharedTable) -> None:
        try:
            self.lobby.join(table, self.player)
        except ValueError as err:
            self.notify(sentence(err), severity="warning", markup=False)
            return
        self.hosted.keep_mutes()  # a guest has a rejoin code now
        if table.started:
            self.hosted.sit_at(table)
        else:
            self.app.push_screen(WaitingScreen(table))

    def rejoin(self, field: Input) -> None:
        """A guest's rejoin code, from a new connection: their seat again."""
        try:
            table = self.lobby.rejoin(self.player, field.value)
        except ValueError as err:
            self.notify(sentence(err), severity="warning", markup=False)
            field.value = ""  # full, it took no more letters: the next code is typed anew
            return
        field.value = ""
        self.hosted.rejoined(table)
        self.notify(f"Back in your seat at table {table.code}.", markup=False)
        self.show_tables()
        self.join(table)

    def action_watch(self) -> None:
        """Watch the picked table: playing, or still waiting for its players."""
        table = self.picked()
        if table is None:
            return
        if table.started:
            self.hosted.sit_at(table)
        else:
            self.app.push_screen(WaitingScreen(table, watching=True))

    def action_help(self) -> None:
        self.app.push_screen(LobbyHelpScreen())

    def action_code(self) -> None:
        self.query_one("#code", Input).focus()

    kept_setup: HostSetupScreen | None = None
    """The setup screen this session last opened, kept to be shown again (see `action_new`)."""

    def action_new(self, game: str) -> None:
        """The game's setup screen: the one last opened again, as it was left (its picks
        kept), if it was for this game. Making one is a hundred widgets, 60 to 100 ms of
        the host's one loop in a step every other player's keys wait behind (a player
        opening and leaving setups, or an abuser doing nothing else); showing a kept one
        is a redraw. One is kept a session (another game's replaces it)."""
        kept = self.kept_setup
        if kept is None or kept.game != game or not kept.is_attached:
            if kept is not None:
                self.app.uninstall_screen(kept)
                kept.remove()
            kept = self.kept_setup = HostSetupScreen(game)
            self.app.install_screen(kept, name=KEPT_SETUP)
        self.app.push_screen(kept)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "campaign":
            return self.hosted.campaigns_allowed  # a guest keeps none
        if action == "chat":
            return chat_key_acts(self)
        if action == "watch":  # dimmed while there is no table to watch
            return True if self.picked() is not None else None
        return True

    def action_campaign(self) -> None:
        self.app.push_screen(CampaignTableScreen())

    def action_menu(self) -> None:
        self.app.push_screen(BackRoomMenuScreen())

    def action_chat(self) -> None:
        self.query_one("#chat", ChatPanel).start()

    def action_chat_history(self) -> None:
        self.query_one("#chat", ChatPanel).show_history()


class CampaignTableScreen(HostedScreen):
    """One of this player's own campaigns, set at a shared table: its roster's human seats
    are for whoever joins, and every move is saved to it as at home."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="campaign-table.back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby"):
            yield Static(Content("Set one of your campaigns at a shared table"), id="lobby-title")
            yield OptionList(id="campaign-choices")
            yield Static(
                Content(
                    "Enter sets the table; its seats for people are for those who join. A"
                    " round you have begun is yours alone: set the campaign again once it is"
                    " over, and its next round is open to others."
                ),
                id="lobby-help",
            )
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.entries = [
            e
            for e in self.hosted.campaigns().entries()
            if e.campaign is not None
            and not e.campaign.over
            and any(seat.human for seat in e.campaign.seats)
        ]
        choices = self.query_one(OptionList)
        if not self.entries:
            choices.add_option(Option(Content(NO_CAMPAIGN), disabled=True))
        for entry in self.entries:
            c = entry.campaign
            assert c is not None
            choices.add_option(
                Option(Content.assemble((c.name, "bold"), f"  {GAMES[c.game].title}, {c.where()}"))
            )
        if self.entries:
            choices.highlighted = 0
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        entry = self.entries[event.option_index]
        try:
            opened = self.hosted.campaigns().open(entry.path)
        except (CampaignError, OSError) as err:
            self.notify(
                str(err), title="Cannot open the campaign", severity="warning", markup=False
            )
            return
        try:
            table = self.lobby.create(opened.campaign.setup(), self.player, campaign=opened)
        except ValueError as err:
            opened.close()
            self.notify(
                sentence(err), title="Cannot set this table", severity="warning", markup=False
            )
            return
        self.app.switch_screen(WaitingScreen(table))


class HostSetupScreen(SetupScreen):
    """The setup screen, for a shared table: Human seats are for players who join, and
    one more choice, the AI that stands in for a player who is away."""

    def __init__(self, game: str) -> None:
        super().__init__(game)
        keep_full_frames(self, DRAWN_FROM_CACHE)  # the back room keeps it (`kept_setup`)

    def compose_more(self) -> ComposeResult:
        """The AI that plays for a player who is away, and fills free seats at the start
        (a line of its own: the variants' line is full for Vigo's Favor at 80 columns)."""
        with Horizontal(classes="setup-line"):
            yield Static("Stand-in ", classes="label")
            yield Choice(
                [(t.name, t.name) for t in temperaments().values()],
                value="Cautious",
                allow_blank=False,
                compact=True,
                id="stand-in",
            )

    def on_mount(self) -> None:
        """Textual then calls `SetupScreen.on_mount` too (each class's handler runs)."""
        if self.left:
            return
        if self.seat_range[-1] >= 2:  # a shared table: a second seat for a person, to begin
            self.query_one("#kind-1", Select).value = HUMAN  # named "Player 2" as it follows
        # No chosen seed at a shared table: whoever knew it could foresee the dice.
        seed = self.query_one("#seed", Input)
        line = list(seed.parent.children) if seed.parent else [seed]
        for widget in line[max(line.index(seed) - 1, 0) : line.index(seed) + 1]:
            widget.display = False  # the field and its label

    def table(self) -> TableSetup:
        """A seed of 63 bits, from the system's secrets: the few rolls of a game's start
        pick out one seed of 2^32 (a local table's) in a night of trying them all, and then
        every roll to come; of 2^63, never."""
        return msgspec.structs.replace(super().table(), seed=secrets.randbits(63))

    def action_start(self) -> None:
        app = cast("HostedServices", self.app)
        assert app.lobby is not None and app.player is not None
        try:
            setup = self.table()
            setup.new_game()  # the settings' own checks, before anyone joins
            stand_in = str(self.query_one("#stand-in", Select).value)
            table = app.lobby.create(setup, app.player, stand_in)
        except ValueError as err:
            self.notify(
                sentence(err), title="Cannot set this table", severity="warning", markup=False
            )
            return
        self.app.switch_screen(WaitingScreen(table))
        self.let_go()

    def let_go(self) -> None:
        """A table was set from this screen: the back room keeps it no more (a player at
        a table does not hold a hundred widgets for a setup they may not open again);
        Textual takes it down once it is switched away from, as any screen not kept."""
        self.app.uninstall_screen(self)
        for screen in self.app.screen_stack:
            if isinstance(screen, LobbyScreen) and screen.kept_setup is self:
                screen.kept_setup = None


class WaitingScreen(HostedScreen):
    """A table before its start: its code, who has sat down and who watches; its creator
    starts it. A spectator (`watching`) waits here too, and follows it once it starts."""

    BINDINGS = [
        Binding("s", "start", "Start", id="waiting.start"),
        Binding("escape", "leave", "Leave", id="waiting.leave"),
        Binding("f1,question_mark", "rules", "Rules", id="waiting.rules"),  # as at the table
        # the chat panel's title names these (`/`: see TableScreen's)
        Binding("slash", "chat", "Chat", show=False, priority=True, id="waiting.chat"),
        Binding("h", "chat_history", "Chat history", id="waiting.chat_history", show=False),
    ]

    def __init__(self, table: SharedTable, *, watching: bool = False) -> None:
        super().__init__()
        self.table = table
        self.watching = watching
        self.gone = False

    def compose(self) -> ComposeResult:
        with Vertical(id="waiting"):
            yield Static(id="waiting-title")
            yield Static(id="waiting-seats")
            yield Static(id="waiting-watchers")
            yield Static(id="waiting-help")
            watching = self.table.seat_of(self.player.identity) is None
            seat = ChatSeat(self.table.chat, self.player, self.hosted.muted, watching=watching)
            yield ChatPanel(seat, title="Chat at this table: / to talk, h for all of it", id="chat")
        yield CantinaFooter()

    def on_mount(self) -> None:
        heading = self.query("#waiting-title").results(Static)
        shown = next(heading, None)
        if shown is None:  # the session ended while this screen was put up: nothing to show
            return
        title = GAMES[self.table.setup.game].title
        shown.update(Content.assemble(f"{title}, table ", (self.table.code, "bold")))
        if self.watching:
            self.lobby.watch(self.table, self.player)
            self.counted = True
        self._shown: tuple[Content, Content, Content] | None = None
        self.follow()
        self.set_interval(REFRESH, self.follow)

    counted = False
    """Whether this screen counts its player among the table's watchers (from its mount)."""

    def on_unmount(self) -> None:
        if self.counted:
            self.lobby.unwatch(self.table, self.player)

    def help_line(self) -> Content:
        missing = len(self.table.free_seats)
        free = f"{missing} seat{'s' if missing != 1 else ''} free" if missing else "no seat free"
        if self.watching:
            return Content(f"You are watching ({free}); when it starts, you follow it.")
        if self.table.starting:
            return Content.assemble(
                (self.table.creator.name, "bold"),
                " is starting the table: its seats are being checked with the other hosts.",
            )
        if self.table.creator.identity == self.player.identity:
            if self.table.owners_alone:
                return Content(
                    "Press s to start. This round began before the table was set, so it is"
                    " yours alone: the stand-in plays the other seats, and others may watch."
                    " Once it is over, leave and set the campaign again (c) for others to join."
                )
            if not missing:
                return Content("Everyone is here: press s to start.")
            return Content(
                f"Press s to start when everyone is here ({free}); the stand-in AI takes"
                " any free seat."
            )
        return Content.assemble(
            "Waiting for ", (self.table.creator.name, "bold"), f" to start the table ({free})."
        )

    def follow(self) -> None:
        if self.gone:  # the pop below takes effect later: never leave twice
            return
        leaving = self.table.started or self.lobby.find(self.table.code) is not self.table
        if leaving and not self.is_active:
            # A dialog on it (the chat's history, the rules): the pop below would take
            # that, and leave this screen, dead, under the table. Once it is closed.
            return
        if self.table.started:
            self.gone = True
            self.app.pop_screen()
            self.hosted.sit_at(self.table)
            return
        if self.lobby.find(self.table.code) is not self.table:
            self.gone = True
            self.notify(self.table.closed_why or "That table was closed.", severity="warning")
            self.app.pop_screen()
            return
        lines = [
            Content.assemble(f"{seat + 1:>2}  ", self.table.seat_label(seat))
            for seat in range(len(self.table.setup.seats))
        ]
        watchers = [self.lobby.name_of(who) for who in self.table.watching()]
        shown = (
            Content("\n").join(lines),
            Content(f"Watching: {names_line(watchers)}" if watchers else ""),
            self.help_line(),
        )
        if shown != self._shown:
            self._shown = shown
            for name, text in zip(
                ("#waiting-seats", "#waiting-watchers", "#waiting-help"), shown, strict=True
            ):
                self.query_one(name, Static).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":
            return not self.watching and self.table.creator.identity == self.player.identity
        if action == "chat":
            return chat_key_acts(self)
        return True

    def action_start(self) -> None:
        self.run_worker(self._start(), group="start", exclusive=True)

    async def _start(self) -> None:
        """With a shared lobby the start goes to Redis first (`Lobby.started`): the table
        is followed as soon as it has started there, not at the next look (`REFRESH`)."""
        try:
            dealer = self.lobby.start(self.table, self.player)
        except ValueError as err:
            self.notify(sentence(err), severity="warning", markup=False)
            return
        if dealer is None:  # on its way: say so now, and wait for it
            self.follow()
            await self.lobby.started(self.table, self.player)
        self.follow()

    def action_rules(self) -> None:
        self.hosted.action_rules(self.table.setup.game)

    def action_leave(self) -> None:
        self.gone = True  # a tick of `follow` before the pop takes effect must not pop again
        if not self.watching:
            self.lobby.leave_unstarted(self.table, self.player)
        self.app.pop_screen()

    def action_chat(self) -> None:
        self.query_one("#chat", ChatPanel).start()

    def action_chat_history(self) -> None:
        self.query_one("#chat", ChatPanel).show_history()
