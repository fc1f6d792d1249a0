"""What screens need from the app they run in, as a typed protocol.

Imports point one way: the app imports its screens, never the reverse. A screen that
must reach the app (open a campaign, sit at a table, read the pace) goes through
`UsesApp.cantina`, typed as `AppServices`; the app (and the SSH host's app, with
`HostedServices`) provides every member, which the type checker holds it to.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from textual.screen import Screen

    from cantina.campaign.series import Campaign
    from cantina.campaign.store import Campaigns, OpenCampaign
    from cantina.chat import Muted
    from cantina.dealer import Pace
    from cantina.live import LiveTable
    from cantina.lobby import Lobby, Player, SharedTable
    from cantina.preferences import Preferences
    from cantina.seating import TableSetup


class AppServices(Protocol):
    """The app as its screens use it, besides Textual's own `App`."""

    preferences: Preferences
    pace: Pace
    """How long what happens at a table stays on show (shared with its dealers)."""
    animation_speed: float
    """Dice tumble for about half a second times this; 0 turns animation off."""
    campaigns_allowed: bool
    """Whether this player may keep campaigns here (an SSH guest may not)."""
    files_on_host: bool
    """Whether a campaign may be exported to a path the player types (not over SSH)."""
    person_name: str
    """What a new table's first seat for a person is called until renamed: "Player 1" at
    home (hot-seat players share the keyboard), the player's own name over SSH."""

    def store_preferences(self) -> None: ...

    def campaigns(self) -> Campaigns: ...

    def play_campaign(self, path: Path) -> bool: ...

    def sit_down(self, campaign: OpenCampaign) -> None: ...

    def back_at(self, screen: Screen) -> None: ...

    def leave_campaign(self, saved: Callable[[], None], anyway: Callable[[], None]) -> None:
        """Before leaving the campaign in play: `saved` when all of it is saved (a failed
        save tried again), else ask, and `anyway` if the player leaves all the same."""

    def open_table(
        self, table: TableSetup | LiveTable, *, instead_of: Screen | None = None
    ) -> None:
        """Sit this player at a new local table (over `instead_of`'s place, if given)."""

    def open_replay(self, campaign: Campaign, number: int) -> None:
        """Play one round of a campaign again, move by move, to watch."""

    def action_rules(self, game: str | None = None) -> None: ...

    def settle_heap(self) -> None: ...


class HostedServices(AppServices, Protocol):
    """The SSH host's app, as the back room's screens use it."""

    lobby: Lobby | None
    player: Player | None
    muted: Muted
    """Whom this session's player does not want to read in any chat room."""

    def sit_at(self, table: SharedTable) -> None:
        """Show a started shared table: this player's seat, or a spectator's place."""

    def keep_mutes(self) -> None:
        """Keep whom this player muted for their next connection (a guest's: by the
        rejoin code of the seat they have now)."""

    def rejoined(self, table: SharedTable) -> None:
        """Back in a guest's seat by its rejoin code: their mutes from before again."""


class UsesApp:
    """For screens: the app's services, typed (a mixin before `Screen`)."""

    @property
    def cantina(self) -> AppServices:
        return cast("AppServices", self.app)  # type: ignore[attr-defined]
