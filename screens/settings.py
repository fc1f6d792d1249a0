"""Settings: the theme, dice animation and AI pace, remembered between runs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Select, Static

from cantina.preferences import SPEEDS

PACES = (("instant", 0.0), ("quick", 0.4), ("steady", 0.9), ("leisurely", 1.6))


class SettingsScreen(Screen[None]):
    BINDINGS = [Binding("escape", "back", "Back", id="settings.back")]

    def compose(self) -> ComposeResult:
        app = self.app
        with Vertical(id="settings"):
            yield Static("Settings", id="settings-title")
            with Grid(id="settings-grid"):
                yield Static("Theme")
                yield Select(
                    [(name, name) for name in sorted(app.available_themes)],
                    value=app.theme,
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
                yield Static("AI pace")
                yield Select(
                    [(name, pace) for name, pace in PACES],
                    value=min(PACES, key=lambda p: abs(p[1] - app.ai_pace))[1],
                    allow_blank=False,
                    id="pace",
                )
            yield Static("Changes apply at once and are remembered.", id="settings-note")
        yield Footer()

    def on_select_changed(self, event: Select.Changed) -> None:
        app = self.app
        if event.select.id == "theme":
            app.theme = event.value  # remembered by the app's theme watcher
            return
        if event.select.id == "animation":
            app.preferences.animation = event.value
            app.animation_speed = SPEEDS[event.value]
        elif event.select.id == "pace":
            app.preferences.ai_pace = app.ai_pace = event.value
        app.store_preferences()

    def action_back(self) -> None:
        self.app.pop_screen()
