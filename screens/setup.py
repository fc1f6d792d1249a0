"""Setting a table: the seats (human or AI, with a temperament), names, settings, variants."""

from __future__ import annotations

import os
from collections.abc import Awaitable
from functools import partial
from typing import Any, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, OptionList, Select, Static

from cantina.ai.temperament import temperaments
from cantina.campaign.errors import CampaignError, explain
from cantina.campaign.model import MAX_SEED
from cantina.campaign.series import Campaign, length_word, rounds_for
from cantina.games import GAMES, Setting
from cantina.seating import Seat, TableSetup, clean_name, numbered
from screens.footer import CantinaFooter
from screens.services import UsesApp
from screens.textual_compat import resume_keeps_styles, select_parts

HUMAN = "human"

ON_SEATS_LINE = ("starting_bank",)
"""Settings shown on the seats line rather than with the variants (that line is full for
Vigo's Favor at 80 columns)."""

ABOUT = "A seat is a person or an AI temperament; each is described here as you pick."


class Tick(Checkbox):
    """A checkbox whose mark itself shows the state (X or blank), not only its colour, so
    a NO_COLOR terminal still shows which variants are on. The mark (Textual's public
    `BUTTON_INNER`) is chosen as the box is drawn; it is one cell either way, so the
    width Textual measures with the class's "X" is the same."""

    def render(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super().render()


Value = TypeVar("Value")


class Choice(Select[Value]):
    """Textual's Select, its parts made in the style they end in (see `select_parts`):
    this screen has eight, and each was restyled, parts and all, once mounted."""

    def compose(self) -> ComposeResult:
        yield from select_parts(self)

    def on_mount(self, event: events.Mount) -> None:
        """Its screen was left while it mounted (an Esc right behind the key that opened
        the setup), or the app is ending: its parts are being taken away, and Textual's
        own mount, which looks for them, would end the app (NoMatches). A Select on its
        way out shows nothing."""
        try:
            left = self.screen not in self.app.screen_stack or not self.is_attached
        except Exception:  # no screen to be on any more (NoScreen): gone already
            left = True
        if left:
            event.prevent_default()


DEFAULT_AI = ("Expert", "Bold", "Cautious", "Reckless", "Superstitious", "Treacherous", "Loyal")


def picker(values: range, value: int, id: str, **kwargs) -> Select[int]:
    """A one-line numeric choice (seats, stake limit, ante, health)."""
    return Choice(
        [(str(n), n) for n in values], value=value, allow_blank=False, compact=True, id=id, **kwargs
    )


class SetupScreen(UsesApp, Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", id="setup.start"),
        Binding("escape", "back", "Back", id="setup.back"),
        Binding("f1", "rules", "Rules", id="setup.rules"),
    ]

    def __init__(self, game: str, *, campaign: bool = False) -> None:
        super().__init__()
        self.game = game
        self.info = GAMES[game]
        self.campaign = campaign
        """Set up a campaign (a name, its length) rather than a single table."""
        low, high = self.info.seats
        self.seat_range = range(low, high + 1)
        self.choices = self.info.choices()
        """The settings a person chooses here, from the game's registry entry."""
        self.kinds = [("Human", HUMAN)] + [(t.name, t.name) for t in temperaments().values()]
        """What a seat may be, in the order its list shows them."""
        self.rows: list[tuple[Horizontal, Input, Select[str]]] = []
        """Each seat's row made so far, with its name field and its kind list."""
        self.fresh: set[Select[Any]] = set()
        """Kind lists of rows just added: their first Changed message is their initial
        value, not a choice."""
        self.given: dict[int, str] = {}
        """The name each seat was last given to follow its kind; a name other than that
        (or blank) is the person's own, and stays."""

    def compose(self) -> ComposeResult:
        with Vertical(id="setup"):
            what = "a new campaign" if self.campaign else "set the table"
            yield Static(Content(f"{self.info.title}: {what}"), id="setup-title")
            if self.campaign:
                with Horizontal(classes="setup-line", id="campaign-line"):
                    yield from self.compose_campaign()
            with Horizontal(classes="setup-line"):
                yield Static("Seats ", classes="label")
                yield picker(
                    self.seat_range,
                    self.first_count,
                    "seat-count",
                    disabled=len(self.seat_range) == 1,
                )
                yield Static("  Seed ", classes="label")
                yield Input(
                    placeholder="random",
                    id="seed",
                    compact=True,
                    restrict=r"\d*",
                    max_length=len(str(MAX_SEED)),
                )
                for setting in self.choices:
                    if setting.name in ON_SEATS_LINE:
                        yield Static(f"  {setting.title} ", classes="label")
                        yield self.setting_widget(setting)
            # Above the seats: an open list of temperaments covers the rows below its seat.
            yield Static(ABOUT, id="about")
            for seat in range(self.first_count):
                yield self.seat_row(seat)
            with Horizontal(classes="setup-line", id="variants"):
                yield from self.compose_settings()
            yield from self.compose_more()
            with Horizontal(classes="setup-line"):
                yield Button(
                    Content("Start  [ctrl+s]"), id="start", variant="primary", compact=True
                )
                yield Button(Content("Back  [esc]"), id="back", compact=True)
        yield CantinaFooter()

    @property
    def first_count(self) -> int:
        """The seats the screen opens with (as many rows as it makes at first)."""
        return max(self.seat_range[0], min(4, self.seat_range[-1]))

    def seat_row(self, seat: int) -> Horizontal:
        """The line of one seat: its number, its name, and who sits there (kept in
        `rows`, as a row added later is not in the screen's DOM until it is mounted)."""
        default = (
            self.cantina.person_name if seat == 0 else DEFAULT_AI[(seat - 1) % len(DEFAULT_AI)]
        )
        self.given[seat] = default
        name = Input(value=default, id=f"name-{seat}", compact=True, max_length=16)
        kind: Select[str] = Choice(
            self.kinds,
            value=HUMAN if seat == 0 else default,  # as `kind_of` says until it is mounted
            allow_blank=False,
            compact=True,
            id=f"kind-{seat}",
            classes="kind",
        )
        row = Horizontal(
            Static(f"{seat + 1:>2} ", classes="label"),
            name,
            kind,
            classes="seat-row",
            id=f"seat-row-{seat}",
        )
        self.rows.append((row, name, kind))
        return row

    def compose_campaign(self) -> ComposeResult:
        yield Static("Name ", classes="label")
        yield Input(value="Campaign", id="campaign-name", compact=True, max_length=40)
        yield Static(f"  {self.info.length_word} ", classes="label", id="length-word")
        yield picker(range(1, 21), self.info.length, "campaign-length")
        if self.game == "victim":
            yield Static("  Match stake ", classes="label")
            yield picker(range(0, 11), 5, "match-stake")

    def compose_settings(self) -> ComposeResult:
        """A tick for each yes-or-no setting, a list of numbers for each other one, as the
        game's settings declare them (their help is the tooltip); those of the seats line
        are there."""
        for setting in self.choices:
            if setting.name in ON_SEATS_LINE:
                continue
            if setting.kind is not bool:
                yield Static(f"{setting.title} ", classes="label")
            yield self.setting_widget(setting)

    def setting_widget(self, setting: Setting) -> Tick | Select[int]:
        if setting.kind is bool:
            return Tick(
                setting.title,
                value=bool(setting.default),
                id=setting.flag,
                compact=True,
                tooltip=setting.help,
            )
        return picker(setting.offered(), setting.default, setting.flag, tooltip=setting.help)

    def compose_more(self) -> ComposeResult:
        """Further lines above the buttons, for a subclass (a shared table's stand-in)."""
        yield from ()

    def on_mount(self) -> None:
        if self.left:
            return
        self.show_rows()
        self.follow_names()
        self.follow_kinds(list(self.query(".kind").results(Select)))
        # a new campaign opens on its name, so a player types it at once (all of it
        # selected: what they type replaces the default); a table, on Start
        first = "#campaign-name" if self.campaign else "#start"
        self.query_one(first).focus()
        self.call_after_refresh(setattr, self, "ready", True)

    def post_message(self, message: Message) -> bool:
        resume_keeps_styles(self, message)
        return super().post_message(message)

    ready = False
    """Set once mounted: the Selects' first Changed messages are their initial values."""

    def picked(self, selector: str) -> Any:
        """What the `Select` at `selector` holds (never blank: none here allows it)."""
        value = self.query_one(selector, Select).value
        assert value is not Select.BLANK
        return value

    def follow_kinds(self, selects: list[Select[Any]]) -> None:
        """Describe each seat's kind in the about line as the person moves over its list.
        Textual's Select tells of a highlight in its open list (an OptionList) to nobody:
        its `OptionHighlighted` stops there. Both are public reactives."""
        for select in selects:
            describe = partial(self.describe, select)
            self.watch(select.query_one(OptionList), "highlighted", describe, init=False)
            self.watch(select, "expanded", describe, init=False)

    async def follow_kinds_when_mounted(
        self, mounted: Awaitable[None], selects: list[Select[Any]]
    ) -> None:
        await mounted
        self.follow_kinds(selects)

    def show_rows(self) -> None:
        """Show a row for each seat counted. A row is made when the count first reaches
        it: seats past the first few are rarely set, and each row is a dozen widgets
        (over SSH, in every session that opens this screen)."""
        count = self.picked("#seat-count")
        made = len(self.rows)
        if count > made:
            new = [self.seat_row(seat) for seat in range(made, count)]
            selects = [kind for _, _, kind in self.rows[made:]]
            self.fresh.update(selects)
            mounted = self.query_one("#setup").mount_all(new, after=self.rows[made - 1][0])
            self.call_next(self.follow_kinds_when_mounted, mounted, selects)
        for seat, (row, _, _) in enumerate(self.rows):
            row.display = seat < count

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "seat-count":
            self.show_rows()
            self.follow_names()
        elif event.select in self.fresh:
            self.fresh.discard(event.select)  # a row just added: its own initial value
        elif event.select.has_class("kind"):
            self.follow_names()
            self.describe(event.select)

    def on_checkbox_changed(self) -> None:
        """A campaign's length counts laps of Vigo's Favor, or rounds with a House Vigo
        (which keeps the title): its label says which, as the variant is ticked."""
        if self.campaign:
            word = length_word(self.game, self.settings(self.picked("#seat-count")))
            self.query_one("#length-word", Static).update(f"  {word} ")

    def describe(self, select: Select[Any]) -> None:
        """The about line: the kind highlighted in the seat's open list as the person
        moves over it, else the one chosen."""
        if not self.ready:
            return
        kind = select.value
        highlighted = select.query_one(OptionList).highlighted
        if select.expanded and highlighted is not None:
            kind = self.kinds[highlighted][1]
        if kind == HUMAN:
            about = "Human: a person at this keyboard."
        else:
            about = f"{kind}: {temperaments()[str(kind)].description}"
        self.query_one("#about", Static).update(Content(about))

    def follow_names(self) -> None:
        """Each seat whose name the person has not typed is named after its kind: "Player
        N" for a person, else its temperament, numbered where seats would share a name
        (as `seats_from_text` names them)."""
        count = self.picked("#seat-count")
        fields = [name for _, name, _ in self.rows]
        own = [
            field.value.strip() not in ("", self.given[seat]) for seat, field in enumerate(fields)
        ]
        names = [
            field.value.strip() if own[seat] else self.kind_name(seat)
            for seat, field in enumerate(fields)
        ]
        names[:count] = numbered(names[:count])
        for seat, field in enumerate(fields):
            if not own[seat]:
                self.given[seat] = field.value = names[seat]

    def kind_of(self, seat: int) -> str:
        """Who sits at `seat`: a row's list holds its value only once it is mounted, and
        until then it is the one the row was made with."""
        kind = self.rows[seat][2].value
        if kind is Select.NULL or kind is Select.BLANK:
            return HUMAN if seat == 0 else DEFAULT_AI[(seat - 1) % len(DEFAULT_AI)]
        return str(kind)

    def kind_name(self, seat: int) -> str:
        kind = self.kind_of(seat)
        if kind != HUMAN:
            return kind
        return self.cantina.person_name if seat == 0 else f"Player {seat + 1}"

    def table(self) -> TableSetup:
        count = self.picked("#seat-count")
        seats = []
        for seat, (_, field, _) in enumerate(self.rows[:count]):
            kind = self.kind_of(seat)
            name = clean_name(field.value, f"Seat {seat + 1}")
            seats.append(Seat(name, None if kind == HUMAN else kind))
        seed_text = self.query_one("#seed", Input).value
        seed = int(seed_text) if seed_text else int.from_bytes(os.urandom(4), "big")
        if seed > MAX_SEED:  # the result tells the seed as a command that must take it
            raise ValueError(f"the seed must be a whole number from 0 to {MAX_SEED}")
        return TableSetup(self.game, self.settings(count), tuple(seats), seed)

    def settings(self, count: int) -> Any:
        """The table's settings: what was chosen here, for `count` seats."""
        chosen = {
            setting.name: self.query_one(f"#{setting.flag}", Tick).value
            if setting.kind is bool
            else self.picked(f"#{setting.flag}")
            for setting in self.choices
        }
        return self.info.settings_for(count, **chosen)

    def new_campaign(self) -> Campaign:
        """The campaign this screen describes (ValueError when the parts do not fit)."""
        setup = self.table()
        length = self.picked("#campaign-length")
        rounds = rounds_for(self.game, setup.settings, len(setup.seats), length)
        stake = self.picked("#match-stake") if self.game == "victim" else 0
        name = self.query_one("#campaign-name", Input).value
        return Campaign.new(
            name,
            self.game,
            setup.seats,
            setup.settings,
            rounds=rounds,
            seed=setup.seed,
            match_stake=stake,
        )

    @on(Button.Pressed, "#start")
    def start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#back")
    def back_pressed(self) -> None:
        self.action_back()

    def action_start(self) -> None:
        if self.campaign:
            self.start_campaign()
            return
        try:
            setup = self.table()
            setup.new_game()  # the settings' own checks, before the table is set
        except ValueError as err:
            self.notify(str(err), title="Cannot start", severity="warning", markup=False)
            return
        self.cantina.open_table(setup, instead_of=self)

    def start_campaign(self) -> None:
        """Save the new campaign, then sit down at its first table."""
        try:
            campaign = self.new_campaign()
            store = self.cantina.campaigns()
            opened = store.open(store.create(campaign))
        except (ValueError, OSError, CampaignError) as err:
            self.notify(
                explain(err), title="Cannot start the campaign", severity="warning", markup=False
            )
            return
        self.app.pop_screen()
        self.cantina.sit_down(opened)

    @property
    def left(self) -> bool:
        """Whether the screen was taken off the stack (while it was still mounting: its
        parts are going, and its handlers find nothing to set up), or the app is ending
        (its screens are taken down while still on the stack)."""
        return self not in self.app.screen_stack or not self.is_attached

    def action_back(self) -> None:
        if not self.ready:  # an Esc right behind the key that opened it: once mounted
            self.call_after_refresh(self.action_back)
            return
        self.app.pop_screen()

    def action_rules(self) -> None:
        self.cantina.action_rules(self.game)
