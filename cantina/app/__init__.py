"""The Textual app: the cantina menu, the tables, themes and remembered preferences.

Only this package (and the SSH host) may import textual, and it imports its screens,
never the reverse: screens reach the app through the protocol they declare
(`screens.services.AppServices`), which this app provides. It sets a local table up (a
`LiveTable` and its `Dealer`) and shows it; the screens draw and forward a person's
picks.
"""

from __future__ import annotations

import gc
import os
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs
from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.geometry import Size
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme

from cantina import preferences as prefs
from cantina.app.themes import THEMES
from cantina.campaign.errors import CampaignError, explain, os_reason
from cantina.games import GAMES
from cantina.pace import TUMBLE_SECONDS, Pace
from screens.menu import MenuScreen
from screens.stylesheets import stylesheets
from screens.textual_compat import (
    OneLineCrash,
    focus_moves_repaint_their_widgets,
    is_exiting,
    start_with_theme,
)
from screens.too_small import TooSmallScreen

if TYPE_CHECKING:  # the rules core loads with the first table, not with the menu
    from cantina.campaign.series import Campaign
    from cantina.campaign.store import Campaigns, OpenCampaign
    from cantina.live import LiveTable
    from cantina.seating import TableSetup
    from screens.services import AppServices
    from screens.table import TableScreen

MIN_SIZE = (80, 24)
"""The smallest terminal the layout is drawn for; below it a notice asks for more room."""
PERSON = "Player 1"
"""A new table's first seat for a person, at home (`AppServices.person_name`)."""

_css_variables: dict[tuple[type, str], tuple[Theme, dict[str, str]]] = {}
"""Each app class's CSS variables for each theme (see `CantinaApp.get_css_variables`)."""
CSS_VARIABLES_KEPT = 64
"""Themes whose variables are kept at most (the built-in ones and ours are fewer)."""


def crash_file() -> Path:
    """Where the details of the last crash are kept: CANTINA_LOG_DIR, else the user's log
    folder (platformdirs)."""
    folder = os.environ.get("CANTINA_LOG_DIR") or platformdirs.user_log_dir(
        "cantina", appauthor=False
    )
    return Path(folder) / "crash.txt"


class CantinaApp(OneLineCrash, App[None]):
    """Cantina: the menu first, or straight to a table when `start` is given. Should
    anything go wrong that nothing caught, it ends with status 1 and one line saying so
    (`crash_line`), the details in a file."""

    TITLE = "Cantina"
    CSS_PATH = stylesheets("cantina.tcss")
    """The dice and status widgets' sheet loads with the first table (TableScreen), which
    keeps its parsing off the cold start to the menu."""
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    files_on_host = True
    """Whether a campaign may be exported to a path the player types (not over SSH)."""
    alone_in_process = True
    """Whether this app is the only one in its process, and so may tidy the collector
    when a table starts (`settle_heap`); the SSH host tunes it once for every session."""

    def __init__(
        self,
        *,
        start: TableSetup | None = None,
        animation_speed: float | None = None,
        pace: float | None = None,
        save_preferences: bool = True,
        save_dir: Path | None = None,
        resume: Path | None = None,
    ) -> None:
        super().__init__()
        focus_moves_repaint_their_widgets()  # a Tab drew a whole frame (see its notes)
        self.save_dir = save_dir
        """Where campaigns are saved (None: CANTINA_SAVE_DIR, else the user data folder)."""
        self.resume = resume
        """A campaign save to open at start, instead of the menu."""
        self.campaigns_allowed = True
        """Whether this player may keep campaigns here (an SSH guest may not)."""
        self.person_name = PERSON
        """A new table's first seat for a person, until renamed (`AppServices`)."""
        self.campaign_session: OpenCampaign | None = None
        """The campaign being played, locked and autosaving, until back at the menu."""
        self.tables_open: list[TableScreen] = []
        """The table screens this app has shown that are still up."""
        self.preferences, self.preferences_problem = prefs.load()
        self.save_preferences = save_preferences
        self.start = start
        self.animation_speed = (
            self.preferences.animation_speed if animation_speed is None else animation_speed
        )
        """Dice tumble for about half a second times this; 0 turns animation off."""
        self.pace = Pace(
            beat=self.preferences.pace if pace is None else pace,
            roll=TUMBLE_SECONDS * self.animation_speed,
        )
        """How long what happens at a table stays on show: every local table's dealer
        reads it, so a change in the settings applies at once."""
        for theme in THEMES:
            self.register_theme(theme)
        if self.preferences.theme in self.available_themes:
            # Not `self.theme = ...`: that re-parses every stylesheet (see start_with_theme).
            start_with_theme(self, self.preferences.theme)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every note as it is written, never as markup: notes quote names, files, typed
        paths and reasons that players and saves chose, and `x [/] y` read as markup ends
        the app. Textual's screens and widgets ask for markup by default, so it is refused
        here, where they all arrive."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def get_css_variables(self) -> dict[str, str]:
        """The theme's CSS variables, worked out once a process for each theme (Textual's
        own works out the theme's whole colour system on every call, three times as an app
        starts: about 15 ms of a hosted session's first step of the host's loop). The
        variables depend only on the theme and the app's class; the theme is compared by
        identity, so a theme registered anew under an old name is worked out anew."""
        theme = self.current_theme
        key = (type(self), theme.name)
        kept = _css_variables.get(key)
        if kept is None or kept[0] is not theme:
            variables = super().get_css_variables()
            if len(_css_variables) < CSS_VARIABLES_KEPT or key in _css_variables:
                _css_variables[key] = (theme, variables)
        else:
            variables = kept[1]
            self.theme_variables = dict(variables)
        return dict(variables)

    def get_default_screen(self) -> Screen:
        """The menu is the bottom of the screen stack: composing it as the default screen,
        rather than pushing it over an empty one, takes about a fifth off a cold start."""
        return MenuScreen()

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self.preferences_problem:
            self.notify(self.preferences_problem, title="Preferences", severity="warning")
        if self.animation_level == "none":
            self.pace.roll = 0.0  # dice show their faces at once: nobody waits for them
        if self.start is not None:
            self.open_table(self.start)
        elif self.resume is not None:
            self.play_campaign(self.resume)
        self._check_size()

    def on_unmount(self) -> None:
        self.close_campaign()

    def settle_heap(self) -> None:
        """A table has started: collect everything once, then set what is left aside from
        the collector (`gc.freeze`), so that during play it looks only at what play makes.

        Left to itself, a full collection came about once every 75 moves of a person at a
        Victim! table with two AI seats (benchmarks/bench_app.py) and held up that move's
        frame by 100 to 350 ms, looking over every object the app and the earlier tables
        had made. Those tables' screens, which only such a collection frees, go here: the
        heap is unfrozen first, so nothing is kept for good."""
        if self.alone_in_process:
            gc.unfreeze()
            gc.collect()
            gc.freeze()

    # --- campaigns -------------------------------------------------------------------------

    def campaigns(self) -> Campaigns:
        from cantina.campaign.store import Store, save_dir

        return Store(save_dir(self.save_dir))

    def play_campaign(self, path: Path) -> bool:
        """Open a saved campaign (locked, autosaving) and sit down at its table; False,
        with the reason shown, when it is in use elsewhere or damaged."""
        self.close_campaign()
        try:
            opened = self.campaigns().open(path)
        except (CampaignError, OSError) as err:
            self.notify(explain(err), title="Cannot open the campaign", severity="error")
            return False
        self.sit_down(opened)
        return True

    def sit_down(self, campaign: OpenCampaign) -> None:
        """Show an open campaign: its table, or its standings when it is over."""
        from screens.standings import StandingsScreen

        self.campaign_session = campaign
        campaign.on_error = lambda err: self.notify(
            f"Could not save {campaign.campaign.name!r}: {os_reason(err)}. Play goes on; the "
            "next decision tries again, and so does leaving.",
            title="Autosave failed",
            severity="error",
        )
        series = campaign.campaign
        if series.over:
            self.push_screen(StandingsScreen(series))
            return
        try:
            table = series.table()
        except ValueError as err:  # it ended as the next round was set up
            self.notify(str(err), title=series.name)
            self.push_screen(StandingsScreen(series))
            return
        self.open_table(table)

    # --- tables ----------------------------------------------------------------------------

    def open_table(
        self, table: TableSetup | LiveTable, *, instead_of: Screen | None = None
    ) -> None:
        """Sit down at a local table: its dealer plays the AI seats, and the people here
        choose for every human seat (hot-seat when there are several). The table lasts as
        long as its screen."""
        from cantina.dealer import Dealer, Place
        from cantina.live import LiveTable
        from screens.game_screens import screen_for

        live = table if isinstance(table, LiveTable) else LiveTable(table)
        seats = frozenset(i for i, seat in enumerate(live.setup.seats) if seat.human)
        screen = screen_for(Dealer(live, pace=self.pace).start(), Place(seats), owns_dealer=True)
        self.showing(screen)
        if instead_of is not None and instead_of is self.screen:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def open_replay(self, campaign: Campaign, number: int) -> None:
        """Round `number` of `campaign`, played again from its start and moves at the
        table's pace, to watch: nobody is asked and nothing is saved."""
        from cantina.dealer import Dealer, Place
        from screens.game_screens import screen_for

        table, moves = campaign.replay_table(number)
        dealer = Dealer(table, pace=self.pace, replay=moves)
        label = f"Replay of {GAMES[campaign.game].unit} {number}"
        self.push_screen(screen_for(dealer.start(), Place(), label=label, owns_dealer=True))

    def showing(self, table: TableScreen) -> None:
        """Keep track of a table screen this app shows (to ask before quitting)."""
        self.tables_open = [t for t in self.tables_open if not t.gone] + [table]

    def action_command_palette(self) -> None:
        """The command palette, unless the app is already on its way out: its search
        runs in a worker that finds the palette's widgets gone (ctrl+q then ctrl+p, read
        at once, ended a hosted session with an error)."""
        if not is_exiting(self):
            super().action_command_palette()

    def leave_campaign(self, saved: Callable[[], None], anyway: Callable[[], None]) -> None:
        """Before leaving the campaign in play (its table, or the cantina): a save that
        failed is tried again; `saved` goes on when all is saved. When it still fails, a
        dialog says what leaving would lose and offers to stay, to export the campaign
        elsewhere, or to leave `anyway`."""
        session = self.campaign_session
        if session is None or session.settle():
            saved()
            return
        from screens.dialogs import UnsavedScreen

        lost = session.unsaved
        what = (
            f"the last {lost} decisions"
            if lost > 1
            else "the last decision"
            if lost
            else "nothing decided"
        )
        message = (
            f"The campaign {session.campaign.name!r} could not be saved: "
            f"{os_reason(session.failure) if session.failure else 'the save failed'}. "
            f"Leaving now loses {what} since its last save."
        )
        self.push_screen(
            UnsavedScreen(message, export=self.files_on_host),
            lambda answer: self._unsaved_answer(answer, saved, anyway),
        )

    def _unsaved_answer(
        self, answer: str | None, saved: Callable[[], None], anyway: Callable[[], None]
    ) -> None:
        from screens.dialogs import EXPORT, LEAVE, AskScreen

        session = self.campaign_session
        if answer == LEAVE or session is None:
            anyway()
            return
        if answer != EXPORT:
            return  # stay: the next decision tries to save again

        def export(where: str | None) -> None:
            from cantina.campaign.store import typed_path

            if not where:
                self.leave_campaign(saved, anyway)  # asked again: nothing is left unsaid
                return
            try:
                made = session.export(typed_path(where))
            except CampaignError as err:
                self.notify(str(err), title="Not exported", severity="error")
            except OSError as err:
                self.notify(
                    f"Not exported: {os_reason(err)}.", title="Not exported", severity="error"
                )
            else:
                self.notify(f"Every decision is in {made}", title="Exported")
                anyway()
                return
            self.leave_campaign(saved, anyway)

        self.push_screen(
            AskScreen(
                "Export the campaign, with every decision, to (a folder or a new file):",
                str(Path.cwd()),
            ),
            export,
        )

    async def action_quit(self) -> None:
        """Quit; when a game is under way at a table here, ask first, saying what
        quitting does to it (lost, saved, or a seat that waits); when the campaign in play
        could not be saved, say what would be lost."""
        self.leave_campaign(self._ask_quit, self.exit)

    def _ask_quit(self) -> None:
        asked = [t.leaving_question() for t in self.tables_open if not t.gone]
        question = next((q for q in asked if q), None)
        if question is None:
            self.exit()
            return
        from screens.dialogs import ConfirmScreen

        question = question.replace("Leave the table?", "Quit the cantina?", 1)
        self.push_screen(ConfirmScreen(question), self._quit_if)

    def _quit_if(self, sure: bool | None) -> None:
        if sure:
            self.exit()

    def back_at(self, screen: Screen) -> None:
        """A screen outside any table came back into view (the menu, the SSH lobby, the
        saves list): the campaign that was played, saved after every decision, is put
        away, so its save can be renamed, deleted or opened by another cantina."""
        if self.screen is screen:  # not a resume at start-up that already sat down
            self.close_campaign()

    def close_campaign(self) -> None:
        """Release the campaign being played (every decision is saved already, unless its
        last save failed: that is tried once more)."""
        if self.campaign_session is not None:
            self.campaign_session.settle()
            self.campaign_session.close()
            self.campaign_session = None

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size)

    def _check_size(self, size: Size | None = None) -> None:
        """Cover the screen with a notice while the terminal is below MIN_SIZE."""
        size = size or self.size
        small = size.width < MIN_SIZE[0] or size.height < MIN_SIZE[1]
        showing = isinstance(self.screen, TooSmallScreen)
        if small and not showing:
            self.push_screen(TooSmallScreen())
        elif showing and not small:
            self.pop_screen()

    def _remember_theme(self, theme) -> None:
        self.preferences.theme = theme.name
        self.store_preferences()

    def crash_line(self, error: BaseException) -> str:
        """Keep the traceback in a file and say, in one line, what happened and where
        the details are (a campaign in play is saved already, after every decision)."""
        what = " ".join(f"{type(error).__name__}: {error}".split())
        said = f"cantina: something went wrong and the cantina closed ({what})."
        if self.campaign_session is not None:
            said += " The campaign in play was saved after its last decision."
        try:
            path = crash_file()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(traceback.format_exception(error)))
        except OSError:
            return said
        return f"{said} The details are in {path}"

    def store_preferences(self) -> None:
        if self.save_preferences:
            try:
                prefs.save(self.preferences)
            except OSError as err:
                self.notify(f"Could not save preferences: {err}", severity="warning")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for theme, label in (
            ("cantina-amber", "Amber CRT"),
            ("cantina-phosphor", "Green phosphor"),
        ):
            yield SystemCommand(
                f"Theme: {label}",
                f"Switch to the {label.lower()} theme (remembered)",
                lambda theme=theme: setattr(self, "theme", theme),
            )
        yield SystemCommand("Rules", "How the three games are played", self.action_rules)

    def action_rules(self, game: str | None = None) -> None:
        from screens.rules import RulesScreen

        self.push_screen(RulesScreen(game))


if TYPE_CHECKING:

    def _provides(app: CantinaApp) -> AppServices:
        """For the type checker: the app provides everything its screens ask of it."""
        return app
