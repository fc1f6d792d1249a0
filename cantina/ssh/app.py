"""The cantina app as one SSH session sees it: its own terminal, colours and screens."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from textual.app import SystemCommand
from textual.dom import DOMNode
from textual.screen import Screen

from cantina.app import CantinaApp
from cantina.chat import ChatSeat, MuteBook, Muted, rejoin_key
from cantina.ssh.driver import ChannelDriver, Terminal
from cantina.ssh.styles import SharedStylesheet
from screens.backroom import LobbyScreen
from screens.game_screens import screen_for
from screens.stylesheets import stylesheets
from screens.table import TableScreen
from screens.textual_compat import (
    frame_due,
    keep_process_streams,
    lazy_strip_caches,
    strips_kept_out_of_cycles,
    timers_on_the_beat,
)

log = logging.getLogger("cantina.ssh")

LEAVE_ANYWAY = 10.0
"""Seconds an app asked to leave before its first screen is up waits for that screen."""

if TYPE_CHECKING:
    from cantina.campaign.store import Campaigns
    from cantina.lobby import Lobby, Player, SharedTable


def colour_system(term: str | None, env: Mapping[str, str] | None = None) -> str:
    """The colour depth a client's TERM (and COLORTERM, if it sent one) allows; OpenSSH
    sends no COLORTERM unless told to, so TERM decides for most players."""
    term = (term or "").lower()
    colorterm = (env or {}).get("COLORTERM", "").lower()
    if colorterm in ("truecolor", "24bit") or term.endswith(("direct", "truecolor")):
        return "truecolor"
    if "256color" in term or term in ("xterm-kitty", "alacritty", "wezterm", "foot"):
        return "256"
    return "standard"


class HostedApp(CantinaApp):
    """One player's cantina over SSH. Nothing here touches the host's files, terminal or
    process-wide streams."""

    CSS_PATH = stylesheets("cantina.tcss", "lobby.tcss")

    files_on_host = False
    """A remote player exports nothing: a path they typed would be on the host's disk."""
    alone_in_process = False
    """Every session shares the host's process (and its collector, tuned at start)."""

    def __init__(
        self,
        terminal: Terminal,
        *,
        colours: str,
        lobby: Lobby | None,
        player: Player | None,
        save_dir: Path | None = None,
        campaign_store: Campaigns | None = None,
        mutes: MuteBook | None = None,
    ) -> None:
        super().__init__(save_preferences=False, save_dir=save_dir)
        timers_on_the_beat()
        # No turn bell over SSH unless the player turns it on: the host's own preference
        # is not theirs, and a bell from a remote session is easy to mistake.
        self.preferences.bell = False
        self.campaigns_allowed = save_dir is not None
        """Only a player with a key has campaigns of their own (in `save_dir`)."""
        self.campaign_store = campaign_store
        """Where they are kept instead of `save_dir`, if elsewhere (Redis, for hosts that
        share one: `cantina.store.campaigns`)."""
        self.terminal = terminal
        self.lobby = lobby
        self.player = player
        if player is not None:
            self.person_name = player.name  # who plays alone from the back room's menu
        self.driver_class = ChannelDriver
        self.shared_screen: TableScreen | None = None
        """The screen of the shared table this session last sat at."""
        self.mutes = mutes
        """The host's book of everyone's mutes (None: this session's are its own)."""
        self.muted = Muted()
        """Whom this player has muted, in the lobby's chat and at every table: a keyed
        player's are kept by the host under their key (the same on every connection), a
        guest's under their seat's rejoin code once they have one (`keep_mutes`)."""
        if mutes is not None and player is not None:
            if player.guest:
                self.muted.changed = self.keep_mutes
            else:
                self.muted = mutes.of(player.identity)
        # As Textual's own console, with the player's colour depth. The host's NO_COLOR is
        # not the player's: `no_color=False` (Textual hides it from its console instead).
        self.console = Console(
            color_system=colours,  # type: ignore[arg-type]
            file=self.console.file,
            markup=True,
            highlight=False,
            emoji=False,
            legacy_windows=False,
            no_color=False,
            force_terminal=True,
            safe_box=False,
            soft_wrap=False,
        )
        # Many apps share the process: none may leave its stdout swapped for its own.
        keep_process_streams(self)
        # Strips make their caches when first used: most of a session's never are.
        lazy_strip_caches()
        # And a line drawn whole is no cyclic garbage: the collector pauses every session.
        strips_kept_out_of_cycles()
        # Parse each stylesheet once for the host, not once per session (see styles.py).
        self.stylesheet = SharedStylesheet(variables=self.get_css_variables())
        self.up = False
        """Whether the first screen has been drawn (Textual's Ready)."""
        self.leaving = False

    def leave(self) -> None:
        """End this session's app, from the host's side (the client's input ended, its
        link dropped, the host is closing). Before the first screen is up this waits for
        it: an exit while the first screen mounts tears its widgets out from under its
        own `on_mount` (`ssh -tt host </dev/null` did, 7 times in 10)."""
        if self.up:
            self.exit()
        elif not self.leaving:
            self.leaving = True
            # In case the first screen never comes up at all.
            asyncio.get_running_loop().call_later(LEAVE_ANYWAY, self.exit)

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        """Restyle a node whose classes changed, once it is in the app: Textual styles
        every widget as it mounts it, so a class changed before then (an Input's in its
        constructor, the lists of a setup screen as it is composed) was styled for
        nothing, two thirds of a setup screen's compose, 50 ms in one step of the loop
        every other session waited for."""
        if node is self or node.is_attached:
            super().update_styles(node, animate)

    def frame_due(self) -> bool:
        """Whether a frame is still to be drawn (the host's work meter waits for it)."""
        return frame_due(self)

    def on_ready(self) -> None:
        self.up = True
        if self.leaving:
            self.exit()

    def crash_line(self, error: BaseException) -> str:
        """A session's own failure: the details go to the host's log; the session ends
        (and its player is told), the others play on."""
        log.error("a session failed:\n%s", "".join(traceback.format_exception(error)))
        return f"cantina: a session ended after an error ({type(error).__name__})"

    def campaigns(self) -> Campaigns:
        """This player's own saves; a guest has none (the screens offer none either)."""
        if not self.campaigns_allowed:
            raise PermissionError("campaigns need a key to come back with")
        if self.campaign_store is not None:
            return self.campaign_store
        return super().campaigns()

    def get_default_screen(self) -> Screen:
        if self.lobby is None:
            return super().get_default_screen()
        return LobbyScreen()

    def sit_at(self, table: SharedTable) -> None:
        """Show a started shared table: acting for this player's seat only, or watching
        when they have none. The table's dealer plays the AI, never this screen."""
        assert table.dealer is not None and self.player is not None
        shown = self.shared_screen
        if shown is not None and not shown.gone and shown.dealer is table.dealer:
            return  # already at this table (one screen per table and player)
        place = table.place_of(self.player)
        self.keep_mutes()
        chat = ChatSeat(table.chat, self.player, self.muted, watching=not place.player)
        self.shared_screen = screen_for(table.dealer, place, chat=chat)
        self.showing(self.shared_screen)
        self.push_screen(self.shared_screen)
        if not place.player:
            self.notify(f"Watching table {table.code}.", markup=False)

    def keep_mutes(self) -> None:
        """A guest's mutes, kept by the host under their seat's rejoin code (if they have
        a seat): a new connection with that code has them again (`rejoined`)."""
        code = self._rejoin_code()
        if code is not None and self.mutes is not None:
            self.mutes.put(rejoin_key(code), self.muted)

    def rejoined(self, table: SharedTable) -> None:
        """Back in a guest's seat by its rejoin code: whom they muted before, muted again."""
        code = self._rejoin_code(table)
        if code is not None and self.mutes is not None:
            self.mutes.adopt(rejoin_key(code), self.muted)

    def _rejoin_code(self, table: SharedTable | None = None) -> str | None:
        lobby, player = self.lobby, self.player
        if lobby is None or player is None or not player.guest:
            return None
        table = table or lobby.table_of(player.identity)
        return lobby.rejoin_code(table, player.identity) if table is not None else None

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette, less what would write a file on the host (screenshots)."""
        for command in super().get_system_commands(screen):
            if command.title != "Screenshot":
                yield command

    def deliver_screenshot(self, *args: Any, **kwargs: Any) -> str | None:
        self.notify("Screenshots are not saved on the host.", severity="warning")
        return None

    def deliver_binary(self, *args: Any, **kwargs: Any) -> str | None:
        self.notify("Files are not saved on the host.", severity="warning")
        return None
