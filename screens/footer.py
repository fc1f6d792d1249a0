"""The cantina's footers: every screen's, which forgets the keys it replaces, and a
table's, with the same keys all game long, dimmed while they cannot act."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from screens.drawing import KeptDrawing
from screens.textual_compat import (
    FooterKey,
    bindings_ready,
    drop_closed_watchers,
    key_disabled,
    set_key_disabled,
)


class CantinaFooter(Footer):
    """Textual's footer, letting go of the keys it replaces (see `drop_closed_watchers`):
    without this each focus change or screen push left its old keys alive until the
    screen closed. And it makes its keys anew only when the keys on show differ: Textual's
    footer remakes them (and lays the screen out again) at every change of the screen's
    bindings, several times for one Tab, though moving the focus seldom changes them."""

    _keys_shown: object = None

    async def recompose(self) -> None:
        shown = self.keys_to_show()
        if shown == self._keys_shown:
            return
        self._keys_shown = shown
        await super().recompose()
        drop_closed_watchers(self, "compact")

    def keys_to_show(self) -> object:
        """Everything `compose` draws the keys from (the screen's bindings on show, how
        each is written and whether it can act); equal, the keys composed are equal."""
        if not bindings_ready(self) or not self.is_attached:
            return None
        active = self.screen.active_bindings
        shown = tuple(
            (binding, self.app.get_key_display(binding), enabled, tooltip)
            for _, binding, enabled, tooltip in active.values()
            if binding.show
        )
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            palette = found[1:] if found is not None else None
        return (shown, palette)


class TableKey(KeptDrawing, FooterKey):
    """A footer key whose two drawings, lit and dimmed, are kept: two or three keys change
    between them at every move, and drawing one anew cost more than a die."""

    def drawing_key(self) -> bool:
        return key_disabled(self)


class TableFooter(CantinaFooter):
    """The footer, with the same keys all game long: a key that cannot act now (choosing
    while an AI thinks, hurrying while a person chooses) is shown dimmed, not hidden (see
    `TableScreen.check_action`). So when only which keys can act changes, the keys on show
    are dimmed or lit where they are, in the same frame, instead of Textual's way of
    removing every key and mounting new ones after the frame, which lays the whole screen
    out again. Any other change (a game over, a new set of keys) goes Textual's way."""

    def compose(self) -> ComposeResult:
        """Textual's footer keys (one for each action, as `Footer` shows them), as
        `TableKey`s. A table has no groups of keys and shows no palette key."""
        if not bindings_ready(self):
            return
        keys: dict[str, TableKey] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in keys:
                keys[binding.action] = TableKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    disabled=not enabled,
                    tooltip=tooltip,
                )
        self.styles.grid_size_columns = len(keys)
        for key in keys.values():
            yield key.data_bind(compact=Footer.compact)

    def bindings_changed(self, screen: Screen) -> None:
        ready = bindings_ready(self) and self.app.app_focus and screen is self.screen
        if not (ready and self._relit()):
            super().bindings_changed(screen)

    def _relit(self) -> bool:
        """Dim or light the keys on show to match the screen's bindings; False when the
        keys themselves differ (a key to add or remove) and nothing was changed."""
        enabled: dict[str, bool] = {}
        for _, binding, active, _ in self.screen.active_bindings.values():
            if binding.show:
                enabled.setdefault(binding.action, active)
        keys = [key for key in self.children if isinstance(key, FooterKey)]
        if [key.action for key in keys] != list(enabled):
            return False
        self._keys_shown = None  # the keys on show now differ from those composed
        for key in keys:
            disabled = not enabled[key.action]
            if key.has_class("-disabled") != disabled:
                set_key_disabled(key, disabled)  # what a click on it does: a bell, or the key
                # The class says so, as in Textual's own footer, but restyling the key by
                # its selectors costs more than the rest of the move: its own style says it.
                key.set_class(disabled, "-disabled", update=False)
                key.styles.text_style = "dim" if disabled else "none"
        return True
