"""Campaigns from the menu: pick a game for a new one, or list the saves to resume one."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from cantina.campaign.errors import CampaignError, explain
from cantina.campaign.store import Entry, typed_path
from cantina.games import GAMES
from screens.dialogs import AskScreen, ConfirmScreen
from screens.footer import CantinaFooter
from screens.services import UsesApp
from screens.setup import SetupScreen
from screens.standings import StandingsScreen
from screens.stylesheets import stylesheets


class ChooseGameScreen(ModalScreen[None]):
    """Which game the new campaign plays; its table setup follows."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [
        *(
            Binding(info.key, f"choose({info.id!r})", info.title, id=f"campaign.{info.id}")
            for info in GAMES.values()
        ),
        Binding("escape", "dismiss", "Back", id="campaign.back"),
        # As on the menu behind it, the arrow keys move through the games (tab does too).
        Binding("down", "app.focus_next", "Next", id="campaign.next", show=False),
        Binding("up", "app.focus_previous", "Previous", id="campaign.previous", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content("A new campaign: which game?"))
            for info in GAMES.values():
                yield Button(Content(f"{info.title}  [{info.key}]"), id=f"campaign-{info.id}")
        yield CantinaFooter()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_choose((event.button.id or "").removeprefix("campaign-"))

    def action_choose(self, game: str) -> None:
        self.dismiss()
        self.app.push_screen(SetupScreen(game, campaign=True))


class CampaignsScreen(UsesApp, Screen[None]):
    """Every saved campaign, newest first; damaged saves are listed with their reason and
    are never written to (they can only be exported, to be looked at)."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [
        # Enter resumes too, as the title line says: the footer has no room for both at 80
        # columns beside the other keys (tests/test_campaign_ui.py measures it).
        Binding("r", "resume", "Resume", id="campaigns.resume", show=False),
        Binding("n", "rename", "Rename", id="campaigns.rename"),
        Binding("x,delete", "delete", "Delete", id="campaigns.delete"),
        Binding("e", "export", "Export", id="campaigns.export"),
        Binding("i", "import", "Import", id="campaigns.import"),
        Binding("t", "standings", "Standings", id="campaigns.standings"),
        Binding("escape", "app.pop_screen", "Back", id="campaigns.back"),
        # The app's ctrl+q, here without a footer entry: esc, then q on the menu, quits, and
        # every key of this list fits the footer at 80 columns only without it.
        Binding("ctrl+q", "app.quit", "Quit", id="campaigns.quit", show=False, priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.store = self.cantina.campaigns()
        self.entries: list[Entry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="campaigns"):
            yield Static(id="campaigns-title")
            yield OptionList(id="campaign-list")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("export", "import"):  # paths on this machine: not over SSH
            return self.cantina.files_on_host
        return True

    def on_screen_resume(self) -> None:
        self.cantina.back_at(self)  # back from a campaign's table: its lock goes
        if self.is_mounted:
            self.reload()

    def reload(self, keep: Path | None = None) -> None:
        """Read the folder again (after a change, or on coming back from a game)."""
        listing = self.query_one(OptionList)
        highlighted = self.selected()
        keep = keep or (highlighted.path if highlighted else None)
        self.entries = self.store.entries()
        listing.clear_options()
        listing.add_options(_option(entry) for entry in self.entries)
        count = len(self.entries)
        # over SSH the host's folders are none of the player's business
        title = (
            f"Campaigns in {self.store.folder}" if self.cantina.files_on_host else "Your campaigns"
        )
        title += (
            "\nEnter or r resumes the highlighted one."
            if count
            else ": none yet. Start one with New campaign on the menu"
            + (", or import a save with i." if self.cantina.files_on_host else ".")
        )
        self.query_one("#campaigns-title", Static).update(Content(title))
        if count:
            paths = [e.path for e in self.entries]
            listing.highlighted = paths.index(keep) if keep in paths else 0
        listing.focus()

    def selected(self) -> Entry | None:
        index = self.query_one(OptionList).highlighted
        if index is None or index >= len(self.entries):
            return None
        return self.entries[index]

    def usable(self) -> Entry | None:
        """The highlighted campaign, if it can be opened (a damaged one says why not)."""
        entry = self.selected()
        if entry is not None and entry.problem is not None:
            self.notify(
                str(entry.problem), title="This save is damaged", severity="warning", markup=False
            )
            return None
        return entry

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_resume()

    def action_resume(self) -> None:
        entry = self.usable()
        if entry is not None and not self.cantina.play_campaign(entry.path):
            self.reload()  # it said why; a save gone meanwhile (deleted elsewhere) goes too

    def action_standings(self) -> None:
        entry = self.usable()
        if entry is None or entry.campaign is None:
            return
        try:  # the list read only its listing: the standings need the whole campaign
            campaign = self.store.load(entry.path)
        except CampaignError as err:
            self.notify(str(err), title="This save is damaged", severity="warning", markup=False)
            self.reload()
            return
        self.app.push_screen(StandingsScreen(campaign))

    def action_rename(self) -> None:
        entry = self.usable()
        if entry is None or entry.campaign is None:
            return

        def rename(name: str | None) -> None:
            if name:
                self.guarded(lambda: self.store.rename(entry.path, name), entry.path)

        self.app.push_screen(
            AskScreen("A new name for the campaign:", entry.campaign.name, max_length=40), rename
        )

    def action_delete(self) -> None:
        """A campaign, or a damaged save (nothing here ever writes to one, but its player
        may want it gone: it can never be played), once the player is sure."""
        entry = self.selected()
        if entry is None:
            return

        def delete(sure: bool | None) -> None:
            if sure:
                self.guarded(lambda: self.store.delete(entry.path))

        if entry.campaign is not None:
            question = f"Delete the campaign {entry.campaign.name!r} ({entry.file})? Its save"
        else:
            called = f"{entry.called!r}, " if entry.called else ""
            question = f"Delete the damaged save {called}{entry.file}? It can never be played; it"
        self.app.push_screen(ConfirmScreen(f"{question} cannot be brought back."), delete)

    def action_export(self) -> None:
        entry = self.selected()
        if entry is None or not self.cantina.files_on_host:
            return

        def export(where: str | None) -> None:
            if where:
                self.guarded(
                    lambda: self.notify(
                        f"Exported to {self.store.export(entry.path, typed_path(where))}",
                        title=entry.file,
                        markup=False,
                    )
                )

        self.app.push_screen(
            AskScreen(f"Export {entry.file} to (a folder or a new file):", str(Path.cwd())),
            export,
        )

    def action_import(self) -> None:
        if not self.cantina.files_on_host:
            return

        def import_file(where: str | None) -> None:
            if where:
                self.guarded(lambda: self.imported(typed_path(where)))

        self.app.push_screen(
            AskScreen("Import a campaign's save from (its file):", f"{Path.cwd()}{os.sep}"),
            import_file,
        )

    def imported(self, source: Path) -> Path:
        """Copy a save into the folder (checked like any save; the file is only read) and
        say what it is called here; the list highlights it."""
        imported = self.store.import_file(source)
        self.notify(f"Imported {imported}", title=source.name, markup=False)
        return imported.path

    def guarded(self, change, keep: Path | None = None) -> None:
        """Run a change to a save; say why when it cannot be made, then list again (with
        the save the change made highlighted, if it made one)."""
        try:
            made = change()
        except (CampaignError, OSError) as err:
            self.notify(explain(err), title="Not done", severity="error", markup=False)
        else:
            keep = made if isinstance(made, Path) else keep
        self.reload(keep)


def _option(entry: Entry) -> Option:
    """Two lines per save: name, game, where it stands and when; then the standings."""
    when = dt.datetime.fromtimestamp(entry.modified).strftime("%Y-%m-%d %H:%M")
    if entry.campaign is None:
        which = f"{entry.called} ({entry.file})" if entry.called else entry.file
        return Option(
            Content.assemble(
                ("DAMAGED ", "bold reverse"),
                f" {which}  {when}\n   ",
                entry.problem.reason if entry.problem else "",
                f" ({entry.problem.field})" if entry.problem and entry.problem.field else "",
            )
        )
    c = entry.campaign
    return Option(
        Content.assemble(
            (c.name, "bold"),
            f"  {GAMES[c.game].title}, {c.where()}  {when}\n   ",
            c.summary(),
        )
    )
