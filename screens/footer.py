"""The cantina's footers: every screen's, which forgets the keys it replaces, and a
table's, with the same keys all game long, dimmed while they cannot act."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from screens.drawing import KeptDrawing
from screens.textual_compat import (
    FooterKey,
    bindings_ready,
    drop_closed_watchers,
    key_disabled,
    mark_bindings_ready,
    set_key_disabled,
)


class KeptKey(KeptDrawing, FooterKey):
    """A footer key whose two drawings, lit and dimmed, are kept: at a table two or three
    keys change between them at every move, and in the lobby five at every Tab (the text
    field takes the letter keys); drawing one anew cost more than a die (0.7 ms a key)."""

    def drawing_key(self) -> tuple[str, str, bool]:
        return self.key_display, self.description, key_disabled(self)  # a key swapped too


def kept_key(key: FooterKey) -> KeptKey:
    """Textual's footer key `key`, not yet mounted, made again as a `KeptKey`: the same
    key, look, classes and tooltip. (Its binding to the footer's `compact`, if any, is the
    caller's to make again: a binding is made as the key mounts, and `key` never does.)"""
    tooltip = key.tooltip
    return KeptKey(
        key.key,
        key.key_display,
        key.description,
        key.action,
        disabled=key_disabled(key),
        tooltip=tooltip if isinstance(tooltip, str) else "",
        classes=" ".join(key.classes),
    )


class CantinaFooter(Footer):
    """Textual's footer, keeping its keys while they stay the same, and letting go of the
    keys it replaces (see `drop_closed_watchers`): without this each focus change or
    screen push left its old keys alive until the screen closed.

    Textual's footer makes all its keys anew whenever the screen's bindings may have
    changed (any focus change, a screen coming back), mostly to show the same keys: every
    key a widget of its own, all of them garbage for a full collection, in each SSH
    session at once."""

    _shown: tuple[object, ...] | None = None
    """What the keys on show were made from (see `_what_to_show`)."""

    AT_ONCE = False
    """Whether the keys are composed with the footer, from the screen's bindings as they
    stand then, rather than once the screen first says what they are (Textual's way:
    a footer with no keys, then the keys mounted, and the screen laid out again)."""

    def compose(self) -> ComposeResult:
        """Textual's footer keys, each made in the footer's style (see `styled_alike`), as
        `KeptKey`s (see `kept_key`): a key dimmed and lit again is not drawn anew."""
        if self.AT_ONCE and not bindings_ready(self):
            mark_bindings_ready(self)
            self._focused, self._shown = self.screen.focused, self._what_to_show()
        for widget in super().compose():
            if type(widget) is FooterKey:
                palette = widget.has_class("-command-palette")  # not bound (see below)
                widget = kept_key(widget)
                if not palette:
                    widget.data_bind(compact=Footer.compact)
            yield self.styled_alike(widget)

    def styled_alike(self, widget: Widget) -> Widget:
        """`widget`, if a key, in the style it will end in, before it is mounted. A key's
        own `compact` starts True, the footer's is False: each key bound to the footer's
        was styled three times over (mounted, made compact, made not compact), the
        dearest part of a focus change in the lobby. (The palette key is not bound, and
        stays compact.)"""
        if isinstance(widget, FooterKey):
            if not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
            widget.set_class(widget.compact, "-compact", update=False)
        return widget

    def _what_to_show(self, active: dict[str, ActiveBinding] | None = None) -> tuple[object, ...]:
        """Everything the footer's keys are made from: whether the bindings are known,
        each active binding (key, binding, enabled, tooltip), and the palette switch.
        (`active`: the screen's active bindings, if already worked out.)"""
        if not bindings_ready(self):
            return (False,)
        if active is None:
            active = self.screen.active_bindings
        keys = tuple((key, b.binding, b.enabled, b.tooltip) for key, b in active.items())
        return (True, keys, self.show_command_palette)

    DIMS_IN_PLACE = True
    """Whether keys that a focus change takes from the screen's bindings are dimmed where
    they are, rather than the keys made anew (see `_dimmed_in_place`). Keys a screen
    hides itself (its `check_action` says so, the focus where it was) go."""

    _focused: Widget | None = None
    """Where the screen's focus was when the keys were last shown."""

    def on_mount(self) -> None:
        if self.DIMS_IN_PLACE:
            self.call_next(self._hear_bindings_at_once)  # once Footer's on_mount has run

    def _hear_bindings_at_once(self) -> None:
        """Told of a change of the screen's bindings as it is made, not at the footer's
        next turn (Textual's footer subscribes to be told later): a focus move's keys
        are then dimmed in the frame that shows the move (see `bindings_changed`)."""
        if not self.is_attached:  # removed meanwhile
            return
        signal = self.screen.bindings_updated_signal
        signal.unsubscribe(self)
        signal.subscribe(self, self.bindings_changed, immediate=True)

    def bindings_changed(self, screen: Screen) -> None:
        """After a focus move, the keys dimmed or lit in place at once, in the frame that
        shows the move (see `_dimmed_in_place`); otherwise, or when that cannot show the
        new bindings, Textual's way (a recompose after the next frame). Textual's way
        drew a frame for the focus and another for the footer after it, and worked out
        the bindings once more there: a Tab in the lobby was two frames."""
        if not (
            self.DIMS_IN_PLACE
            and bindings_ready(self)
            and self.app.app_focus
            and self.is_attached
            and screen is self.screen
            and screen.focused is not self._focused
        ):
            self._later(screen)
            return
        active = screen.active_bindings
        shown = self._what_to_show(active)
        if shown != self._shown and not self._dimmed_in_place(active):
            self._later(screen)
            return
        self._focused, self._shown = screen.focused, shown

    def _later(self, screen: Screen) -> None:
        """Textual's way, at the footer's next turn as Textual's footer is told (and in its
        own context: its keys' `compact` is bound to the footer's as they are made)."""
        if self.DIMS_IN_PLACE:
            self.call_next(super().bindings_changed, screen)
        else:
            super().bindings_changed(screen)

    async def recompose(self) -> None:
        if not self.is_attached:  # removed while the recompose waited: nothing to do
            return
        focused = self.screen.focused
        moved, self._focused = focused is not self._focused, focused
        active = self.screen.active_bindings if bindings_ready(self) else None
        shown = self._what_to_show(active)
        if shown == self._shown:
            return
        if self.DIMS_IN_PLACE and moved and self._dimmed_in_place(active):
            self._shown = shown
            return
        await super().recompose()
        self._shown = shown
        drop_closed_watchers(self, "compact")

    def _dimmed_in_place(self, active: dict[str, ActiveBinding] | None = None) -> bool:
        """Show the screen's keys by lighting them where they are on show, and dimming the
        rest there, when every key to show is on show already, in the same order, with
        the same look (the palette key as it was); False, and nothing changed, otherwise.

        A focus change often takes keys away, and brings them back at the next: in the
        lobby, a text field takes the letter keys while it has the focus. Made anew, the
        keys cost a layout of the whole screen, twice (the old keys removed, the new
        mounted), most of a Tab's 40 ms there; dimmed or lit, they cost a repaint. A key
        that is gone cannot act, and a dimmed key says so (as at a table)."""
        if not bindings_ready(self):
            return False
        if active is None:
            active = self.screen.active_bindings
        wanted: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                wanted.setdefault(binding.action, (binding, enabled, tooltip))
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        keys = list(self.query(FooterKey))
        on_show = [key for key in keys if not key.has_class("-command-palette")]
        palette_keys = [key for key in keys if key.has_class("-command-palette")]
        if len(palette_keys) != (palette is not None):
            return False
        lit: dict[FooterKey, bool] = {key: False for key in on_show}
        place = iter(on_show)
        for action, (binding, enabled, tooltip) in wanted.items():
            key = next((key for key in place if key.action == action), None)
            if key is None or not _looks_like(key, binding, tooltip):
                return False
            lit[key] = enabled
        if palette is not None:
            lit[palette_keys[0]] = palette.enabled
        for key, enabled in lit.items():
            _light(key, enabled)
        return True


class DialogFooter(CantinaFooter):
    """The footer of a screen whose keys are known as it opens (a game's result, at every
    game's end at a hosted table): its keys come with it, so the screen is laid out once
    with them, not a second time as they are mounted (see `AT_ONCE`)."""

    AT_ONCE = True


class TableFooter(CantinaFooter):
    """The footer, with the same keys all game long: a key that cannot act now (choosing
    while an AI thinks, hurrying while a person chooses) is shown dimmed, not hidden (see
    `TableScreen.check_action`). So when only which keys can act changes, the keys on show
    are dimmed or lit where they are, in the same frame, instead of Textual's way of
    removing every key and mounting new ones after the frame, which lays the whole screen
    out again. At a game's end (and the next game's start) as many keys show as before,
    some of them others in the same places (`n` for `space`): those keys are swapped where
    they are, not made anew (remounting the keys cost some 30 ms of a host's loop at each
    game's end and start). Any other change (a new number of keys) goes Textual's way."""

    DIMS_IN_PLACE = False  # a key gone at a table (the game over) goes

    def compose(self) -> ComposeResult:
        """Textual's footer keys (one for each action, as `Footer` shows them), as
        `KeptKey`s. A table has no groups of keys and shows no palette key."""
        if not bindings_ready(self):
            return
        keys: dict[str, KeptKey] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in keys:
                keys[binding.action] = KeptKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    disabled=not enabled,
                    tooltip=tooltip,
                )
        self.styles.grid_size_columns = len(keys)
        for key in keys.values():
            yield self.styled_alike(key).data_bind(compact=Footer.compact)

    def bindings_changed(self, screen: Screen) -> None:
        ready = bindings_ready(self) and self.app.app_focus and screen is self.screen
        if not (ready and self._relit()):
            super().bindings_changed(screen)

    def _relit(self) -> bool:
        """Dim or light the keys on show to match the screen's bindings, swapping a key
        for another where the screen shows another in its place; False when the number
        of keys differs (a key to add or remove) and nothing was changed."""
        wanted: dict[str, tuple[Binding, bool, str]] = {}
        bindings = self.screen.active_bindings  # worked out once (1% of a host's work)
        for _, binding, active, tooltip in bindings.values():
            if binding.show:
                wanted.setdefault(binding.action, (binding, active, tooltip))
        keys = [key for key in self.children if isinstance(key, FooterKey)]
        if len(keys) != len(wanted):
            return False
        for key, (binding, enabled, tooltip) in zip(keys, wanted.values(), strict=True):
            if key.action != binding.action:
                self._swap(key, binding, tooltip)
            _light(key, enabled)
        self._shown = self._what_to_show(bindings)  # what the keys show now
        return True

    def _swap(self, key: FooterKey, binding: Binding, tooltip: str) -> None:
        """Make `key` show `binding` where it is: a repaint, and a new layout only if its
        width changes (no key removed or mounted)."""
        display = self.app.get_key_display(binding)
        wider = cell_len(display + binding.description) != cell_len(
            key.key_display + key.description
        )
        key.key, key.key_display = binding.key, display
        key.description, key.action = binding.description, binding.action
        key.tooltip = tooltip or None
        key.refresh(layout=wider)


def _light(key: FooterKey, enabled: bool) -> None:
    """Light or dim a footer key where it is."""
    disabled = not enabled
    if key.has_class("-disabled") != disabled:
        set_key_disabled(key, disabled)  # what a click on it does: a bell, or the key
        # The class says so, as in Textual's own footer, but restyling the key by its
        # selectors costs more than the rest of the change: its own style says it.
        key.set_class(disabled, "-disabled", update=False)
        key.styles.text_style = "dim" if disabled else "none"


def _looks_like(key: FooterKey, binding: Binding, tooltip: str) -> bool:
    """Whether `key` shows `binding` as Textual's footer would make it (grouped keys show
    no description, their binding's as the tooltip)."""
    grouped = key.has_class("-grouped")
    description = "" if grouped else binding.description
    hint = (tooltip or binding.description) if grouped else (tooltip or None)
    return key.key == binding.key and key.description == description and key.tooltip == hint
