"""Settings: the theme, dice animation, pace and turn bell, remembered between runs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Select, Static

from cantina.pace import TUMBLE_SECONDS
from cantina.preferences import SPEEDS
from screens.footer import CantinaFooter
from screens.services import UsesApp

PACES = (("instant", 0.0), ("quick", 0.25), ("steady", 0.5), ("leisurely", 1.0))
"""Seconds each thing that happens at a table stays on show, by name."""


class SettingsScreen(UsesApp, Screen[None]):
    BINDINGS = [Binding("escape", "back", "Back", id="settings.back")]

    def __init__(self) -> None:
        super().__init__()
        self.shown: dict[str, object] = {}
        """What each list showed when the screen opened, or was last changed to. A list
        tells of its first value as a change; only a value other than this one is."""

    def compose(self) -> ComposeResult:
        app = self.cantina
        with Vertical(id="settings"):
            yield Static("Settings", id="settings-title")
            with Grid(id="settings-grid"):
                yield Static("Theme")
                yield Select(
                    [(name, name) for name in sorted(self.app.available_themes)],
                    value=self.app.theme,
                    allow_blank=False,
                    id="theme",
                )
                yield Static("Dice animation")
                yield Select(
                    [(name, name) for name in SPEEDS],
                    value=app.preferences.animation,
                    allow_blank=False,
                    id="animation",
                )
                yield Static("Pace")
                yield Select(
                    [(name, pace) for name, pace in PACES],
                    value=min(PACES, key=lambda p: abs(p[1] - app.pace.beat))[1],
                    allow_blank=False,
                    id="pace",
                )
                yield Static("Bell on your turn")
                yield Select(
                    [("on", True), ("off", False)],
                    value=app.preferences.bell,
                    allow_blank=False,
                    id="bell",
                )
            yield Static("Changes apply at once and are remembered.", id="settings-note")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.shown = {select.id: select.value for select in self.query(Select) if select.id}

    def on_select_changed(self, event: Select.Changed) -> None:
        """Apply and remember a choice the player made; looking at the settings changes
        nothing, so a preferences file the app could not read (it said so, and plays on
        the defaults) is left as it is until a setting is changed."""
        if event.select.id is None or self.shown.get(event.select.id) == event.value:
            return
        self.shown[event.select.id] = event.value
        app = self.cantina
        if event.select.id == "theme":
            self.app.theme = str(event.value)  # remembered by the app's theme watcher
            return
        if event.select.id == "animation":
            app.preferences.animation = str(event.value)
            app.animation_speed = SPEEDS[str(event.value)]
            app.pace.roll = TUMBLE_SECONDS * app.animation_speed  # every table, at once
        elif event.select.id == "pace":
            app.preferences.pace = app.pace.beat = float(event.value)  # type: ignore[arg-type]
        elif event.select.id == "bell":
            app.preferences.bell = bool(event.value)
        app.store_preferences()

    def action_back(self) -> None:
        self.app.pop_screen()
