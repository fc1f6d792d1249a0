"""The cantina menu: the three games, campaigns (new and resumed), Rules, Settings, Quit."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Static

from cantina.games import GAMES
from screens.footer import CantinaFooter
from screens.services import UsesApp
from screens.textual_compat import LeavesOutDefaultCSS

TITLE_ART = r"""
  ____    _    _   _ _____ ___ _   _    _
 / ___|  / \  | \ | |_   _|_ _| \ | |  / \
| |     / _ \ |  \| | | |  | ||  \| | / _ \
| |___ / ___ \| |\  | | |  | || |\  |/ ___ \
 \____/_/   \_\_| \_| |_| |___|_| \_/_/   \_\
"""


class MenuButton(LeavesOutDefaultCSS, Button):
    """A `Button` (CSS and queries for `Button` still match it) that brings only the rules
    the menu's buttons use, the default style and variant, rather than Button's whole
    stylesheet of variants and flat styles: parsing that is a noticeable part of a cold
    start, and the first table loads it anyway. The rules below are Textual 8.2.8's own for
    these cases, so the buttons look and behave the same."""

    LEAVE_OUT_DEFAULT_CSS = (Button,)
    DEFAULT_CSS = """
    MenuButton {
        width: auto;
        min-width: 16;
        height: auto;
        line-pad: 1;
        text-align: center;
        content-align: center middle;
        pointer: pointer;

        &.-style-default {
            text-style: bold;
            color: $button-foreground;
            background: $surface;
            border: none;
            border-top: tall $surface-lighten-1;
            border-bottom: tall $surface-darken-1;

            &:disabled {
                text-opacity: 0.6;
                pointer: not-allowed;
            }
            &:focus {
                text-style: $button-focus-text-style;
                background-tint: $foreground 5%;
            }
            &:hover {
                border-top: tall $surface;
                background: $surface-darken-1;
            }
            &.-active {
                background: $surface;
                border-bottom: tall $surface-lighten-1;
                border-top: tall $surface-darken-1;
                tint: $background 30%;
            }
        }
    }

    MenuButton:ansi.-style-default {
        border: tall $border-blurred;
        background: ansi_default;

        &:disabled {
            text-opacity: 1;
            text-style: bold dim;
            border: tall $border-blurred !important;
            background: ansi_default !important;
            pointer: not-allowed;
            &:hover {
                background: ansi_default;
            }
        }
        &:hover {
            background: $ansi-background;
            border: tall $border;
        }
        &.-active {
            background: $ansi-background !important;
            border: blank $background !important;
            tint: transparent;
        }
    }
    """


PLAY = Binding.Group("Play")
"""The game keys share one footer entry, `v d i Play`, so that every key of the menu fits
the footer at 80 columns (each game's button names its key, and the key's tooltip its
game)."""


class MenuScreen(UsesApp, Screen[None]):
    """The first screen: pick a game, or resume, read the rules, change settings, quit."""

    BINDINGS = [
        *(
            Binding(info.key, f"game({info.id!r})", info.title, id=f"menu.{info.id}", group=PLAY)
            for info in GAMES.values()
        ),
        Binding("c", "new_campaign", "New campaign", id="menu.new_campaign"),
        Binding("u", "resume", "Resume", id="menu.resume"),
        Binding("r", "rules", "Rules", id="menu.rules"),
        # what a table and the setup screens read the rules with (the back room's help)
        Binding("f1,question_mark", "rules", "Rules", id="menu.help", show=False),
        Binding("s", "settings", "Settings", id="menu.settings"),
        Binding("q", "app.quit", "Quit", id="menu.quit"),
        # The app's ctrl+q, here without a footer entry of its own beside `q Quit`.
        Binding("ctrl+q", "app.quit", "Quit", id="menu.ctrl_quit", show=False, priority=True),
        Binding("down", "next", "Next", id="menu.next", show=False),
        Binding("up", "previous", "Previous", id="menu.previous", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Static(TITLE_ART.strip("\n"), id="title-art")
            yield Static("chance-cube games from the back room of a space cantina", id="tagline")
            with Center(id="menu-buttons"):
                for info in GAMES.values():
                    yield MenuButton(
                        Content(f"{info.title}  [{info.key}]"),
                        id=f"play-{info.id}",
                        classes="game",
                        tooltip=info.blurb,
                    )
                yield MenuButton(Content("New campaign  [c]"), id="new-campaign")
                yield MenuButton(Content("Resume a campaign  [u]"), id="resume")
                yield MenuButton(Content("Rules  [r]"), id="rules")
                yield MenuButton(Content("Settings  [s]"), id="settings")
                yield MenuButton(Content("Quit  [q]"), id="quit")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.query_one("#play-vigo", Button).focus()
        if not self.cantina.campaigns_allowed:
            for button in ("#new-campaign", "#resume"):
                self.query_one(button, Button).disabled = True
                self.query_one(button, Button).tooltip = "Campaigns need a key to come back with"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("new_campaign", "resume"):
            return self.cantina.campaigns_allowed
        return True

    def on_screen_resume(self) -> None:
        """Back at the menu: any campaign that was being played is put away (it saved
        itself after every decision), so another cantina may open it."""
        self.cantina.back_at(self)

    # Each button does what its key does.

    @on(Button.Pressed, ".game")
    def game_pressed(self, event: Button.Pressed) -> None:
        self.action_game((event.button.id or "").removeprefix("play-"))

    @on(Button.Pressed, "#new-campaign")
    def new_campaign_pressed(self) -> None:
        self.action_new_campaign()

    @on(Button.Pressed, "#resume")
    def resume_pressed(self) -> None:
        self.action_resume()

    @on(Button.Pressed, "#rules")
    def rules_pressed(self) -> None:
        self.action_rules()

    @on(Button.Pressed, "#settings")
    def settings_pressed(self) -> None:
        self.action_settings()

    @on(Button.Pressed, "#quit")
    def quit_pressed(self) -> None:
        self.leave()

    def leave(self) -> None:
        """What the last button does: quit the cantina."""
        self.app.exit()

    def action_game(self, game: str) -> None:
        from screens.setup import SetupScreen

        self.app.push_screen(SetupScreen(game))

    def action_new_campaign(self) -> None:
        from screens.campaigns import ChooseGameScreen

        self.app.push_screen(ChooseGameScreen())

    def action_resume(self) -> None:
        from screens.campaigns import CampaignsScreen

        self.app.push_screen(CampaignsScreen())

    def action_next(self) -> None:
        """The arrow keys move through the buttons (tab does too)."""
        self.focus_next(Button)

    def action_previous(self) -> None:
        self.focus_previous(Button)

    def action_rules(self) -> None:
        self.cantina.action_rules()

    def action_settings(self) -> None:
        from screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen())


class BackRoomMenuScreen(MenuScreen):
    """The menu as the back room opens it over SSH (`m`, to play alone): `q`, Esc and its
    last button go back to the back room rather than end the session (a player who had
    opened the menu had no way back but to quit and connect again); ctrl+q still quits."""

    BINDINGS = [
        Binding("q", "back", "Back", id="menu.back"),
        Binding("escape", "back", "Back", id="menu.escape", show=False),
    ]

    def on_mount(self) -> None:
        """Textual then calls `MenuScreen.on_mount` too (each class's handler runs)."""
        self.query_one("#quit", Button).label = Content("Back to the back room  [q]")

    def leave(self) -> None:
        self.action_back()

    def action_back(self) -> None:
        self.dismiss()
