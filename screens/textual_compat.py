"""Every private Textual name the cantina relies on, in one place.

Textual is pinned exactly (pyproject.toml), and where it offers a public way the code uses
it; what is left is here, each piece saying what it reaches into and why nothing public
does the job. `tests/test_textual_compat.py` checks every name and signature below against
the installed Textual, so an upgrade that moves one fails a test that names it, and checks
that the Textual code copied here is still what it was copied from.

Screens, the app, the SSH host and the benchmarks import it, so it imports only textual
and rich (never `cantina.app` or `cantina.ssh`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, ClassVar, Self

from rich.segment import Segment, Segments
from rich.text import Text
from textual import timer
from textual._compositor import ChopsUpdate, Compositor, CompositorUpdate, LayoutUpdate
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.cache import FIFOCache
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.events import Key, Resize, ScreenResume
from textual.geometry import Region, Size
from textual.keys import Keys
from textual.message import Message
from textual.reactive import Reactive
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import RenderOptions, Visual
from textual.widget import Widget
from textual.widgets import OptionList, Select, _footer
from textual.widgets._select import SelectCurrent, SelectOverlay

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from textual import events
    from textual.css.model import RuleSet
    from textual.css.styles import RulesMap
    from textual.style import Style as VisualStyle
    from textual.widgets import Footer

__all__ = [
    "TEXTUAL_TIMER_RUN",
    "FooterKey",
    "KeepsComponentNodes",
    "KeptLines",
    "LeavesOutDefaultCSS",
    "OneLineCrash",
    "ParseHookStylesheet",
    "UncachedXTermParser",
    "UnreadableInput",
    "bindings_ready",
    "drop_closed_watchers",
    "finished_rows",
    "focus_moves_repaint_their_widgets",
    "is_exiting",
    "keep_finished_rows",
    "keep_full_frames",
    "keep_process_streams",
    "kept_background",
    "key_disabled",
    "lazy_strip_caches",
    "mark_bindings_ready",
    "on_each_frame",
    "own_resize",
    "run_on_the_beat",
    "select_parts",
    "set_key_disabled",
    "start_with_theme",
    "strips_kept_out_of_cycles",
    "terminal_output",
    "timers_on_the_beat",
    "visible_widgets",
]

# --- the footer (screens/footer.py) -------------------------------------------------------

FooterKey = _footer.FooterKey
"""The widget Textual's Footer shows for one key (`textual.widgets._footer.FooterKey`;
textual.widgets does not export it): the table's footer makes its keys from a subclass
that keeps their drawings."""


def bindings_ready(footer: Footer) -> bool:
    """Whether `footer` has been told its screen's bindings (`Footer._bindings_ready`):
    until then Textual's footer composes no keys, and the table's footer must not either."""
    return footer._bindings_ready


def key_disabled(key: FooterKey) -> bool:
    """Whether a footer key is dimmed (`FooterKey._disabled`, from its `disabled`
    argument): the table's footer keeps a drawing for each state."""
    return key._disabled


def set_key_disabled(key: FooterKey, disabled: bool) -> None:
    """Dim or light a footer key in place, as far as a click on it goes: `FooterKey`
    reads `_disabled` on a mouse down to ring the bell or press the key. Textual's own
    footer mounts new keys instead, which lays the screen out again; how the key looks
    (its class, its style) is the caller's business."""
    key._disabled = disabled


def drop_closed_watchers(node: DOMNode, attribute: str) -> None:
    """Forget the watchers of `node`'s reactive `attribute` set by widgets since removed.

    Each key of Textual's footer binds its `compact` to the footer's (`data_bind`), which
    adds a watcher to the footer's list (the object's `__watchers`); Textual drops those of
    closed widgets only when `compact` changes, which it never does here. The footer makes
    new keys at every focus change and screen push, so the list, and every key it holds,
    grew without end: thousands of dead keys after a few hundred tabs, in every session of
    the host. The same test Textual's own clean-up uses (`_closing`, `_closed`)."""
    watchers: dict[str, list[tuple[Any, Any]]] = getattr(node, "__watchers", {})
    listed = watchers.get(attribute)
    if listed:
        listed[:] = [(w, call) for w, call in listed if not (w._closing or w._closed)]


# --- a Select's parts (screens/setup.py) ---------------------------------------------------


def select_parts(select: Select[Any]) -> list[Widget]:
    """What `Select.compose` makes (its current value, its list), each already in the
    style it ends in, for a Select whose own `compose` returns these. Textual's gives the
    current value `-has-value` and the list `-textual-compact` only once mounted (a
    watcher, a bound reactive), and so restyles both, with all they hold, once more: a
    sixth of opening a table's setup, which has eight of them. Private: the parts'
    classes (`textual.widgets._select`) and the Select's `_allow_blank` and
    `_type_to_search`, which `compose` reads."""
    current = SelectCurrent(select.prompt)
    if not select._allow_blank:  # never blank: it shows a value from the start
        current.set_reactive(SelectCurrent.has_value, True)
        current.set_class(True, "-has-value", update=False)
    overlay = SelectOverlay(type_to_search=select._type_to_search)
    overlay.set_reactive(OptionList.compact, select.compact)
    overlay.set_class(select.compact, "-textual-compact", update=False)
    return [current, overlay.data_bind(compact=Select.compact)]


# --- default CSS (screens/menu.py) --------------------------------------------------------


class LeavesOutDefaultCSS:
    """Mixin for a widget that brings the DEFAULT_CSS of the classes it derives from,
    except those in `LEAVE_OUT_DEFAULT_CSS`, while CSS selectors and queries still see
    it as one of them. It overrides `DOMNode._node_bases`, the list of classes whose
    DEFAULT_CSS Textual gathers for a node. The public switch, `inherit_css=False`,
    would also drop every other base's CSS (Widget's) and the bases' names from
    selectors."""

    LEAVE_OUT_DEFAULT_CSS: ClassVar[tuple[type, ...]] = ()

    @property
    def _node_bases(self) -> Sequence[type[DOMNode]]:
        bases: Sequence[type[DOMNode]] = super()._node_bases  # type: ignore[misc]
        return [base for base in bases if base not in self.LEAVE_OUT_DEFAULT_CSS]


# --- the theme at start (cantina/app) -----------------------------------------------------


def start_with_theme(app: App[Any], name: str) -> None:
    """Put `app` in theme `name` before any CSS is parsed (from its `__init__`).

    Assigning `app.theme` would run Textual's theme watcher (`App._watch_theme`), which
    re-parses every stylesheet in a fresh parser (its cache thrown away, so all is parsed
    once more at mount): about a tenth of a cold start. This is the rest of that watcher,
    copied from Textual 8.2.8: the reactive set without its watcher, the theme classes,
    the stylesheet's variables and `App._refresh_truecolor_filter` (which swaps in the
    ANSI-to-truecolour filter for the theme's ANSI colours; it has no public form)."""
    app.set_reactive(App.theme, name)
    theme = app.current_theme
    classes = {old: False for old in app.classes if old.startswith("-theme-")}
    classes[f"-theme-{name}"] = True
    classes["-dark-mode"] = theme.dark
    classes["-light-mode"] = not theme.dark
    app.update_classes(classes, update=False)
    app.stylesheet.set_variables(app.get_css_variables())
    app._refresh_truecolor_filter(app.ansi_theme)


# --- the app on its way out (cantina/app) ---------------------------------------------------


def is_exiting(app: App[Any]) -> bool:
    """Whether `app.exit()` has been called (`App._exit`): keys read in the same chunk
    as ctrl+q still arrive, and what they open (the command palette) must not start
    while the app's screens are torn down. Textual has no public flag for it."""
    return app._exit


# --- a screen shown for the first time --------------------------------------------------


# --- many apps in one process (cantina/ssh) -----------------------------------------------


def frame_due(app: App[Any]) -> bool:
    """Whether `app`'s screen has a layout, repaint or widgets to draw that its update
    timer has not drawn yet (`Screen._layout_required` and the like): the host counts a
    session's input as unfinished until its frame is drawn, however late the timer
    fires on a crowded loop. Textual has no public flag for it."""
    if not app._screen_stack:
        return False
    screen = app.screen
    return bool(
        screen._layout_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
    )


class UnreadableInput(Exception):
    """Input the terminal parser failed on: the parser has dropped it and started over,
    so later input is read as usual."""


class UncachedXTermParser(XTermParser):
    """Textual's terminal input parser (`textual._xterm_parser.XTermParser`, which has no
    public form), without the method-level `lru_cache` on `_parse_extended_key`: that
    cache is shared by every parser in the process and keeps key events, and through
    their sender every App that ever parsed a key, alive; and one session's event
    objects must not reach another. It calls the uncached function (`__wrapped__`).

    It also survives input Textual's parser fails on. A key sequence naming a character
    past Unicode's last (`ESC [ 9999999 u`, `ESC [ 27 ; 5 ; 9999999 ~`) made `chr()`
    raise inside the parser's generator, which left it dead: every later chunk then
    failed too. Such a sequence is dropped as an ignored key here; anything else that
    raises in the generator starts a fresh one (`Parser._gen`, `_awaiting`, `_tokens`,
    `_timeout_time`, set as `Parser.__init__` sets them) and raises `UnreadableInput`,
    the rest of that chunk dropped."""

    past_unicode = 0
    """Keys naming a code point no character has, dropped so far: no terminal sends one,
    so its session's input counts as unreadable (the host holds an address that keeps
    sending it)."""

    def _parse_extended_key(  # type: ignore[override]  # a method where Textual has a cache
        self, sequence: str
    ) -> list[events.Key] | None:
        parse = XTermParser._parse_extended_key.__wrapped__
        try:
            return parse(self, sequence)
        except (ValueError, OverflowError):  # a code point no character has
            self.past_unicode += 1
            return [Key(Keys.Ignore, sequence)]

    def feed(self, data: str) -> Iterable[Message]:
        try:
            yield from super().feed(data)
        except Exception as error:
            self.start_over()
            raise UnreadableInput(f"{type(error).__name__}: {error}") from error

    def tick(self) -> Iterable[Message]:
        try:
            yield from super().tick()
        except Exception as error:
            self.start_over()
            raise UnreadableInput(f"{type(error).__name__}: {error}") from error

    def start_over(self) -> None:
        """A fresh parse, as `Parser.__init__` starts one."""
        self._tokens.clear()
        self._gen = self.parse(self._tokens.append)
        self._awaiting = next(self._gen)
        self._timeout_time = None


class ParseHookStylesheet(Stylesheet):
    """Textual's Stylesheet with its one step that turns a CSS source into rules
    (`Stylesheet._parse_rules`) open to a subclass as `parse_source`, and with `reparse`
    and `copy` making sheets of the subclass, where Textual's make a plain `Stylesheet`
    (which would not share what the subclass shares). A subclass must accept
    `variables=` as its only argument.

    `reparse` is Textual 8.2.8's own, with `type(self)` for `Stylesheet`; it sets the
    sheet's private `_rules`, `_rules_map`, `_require_parse` and `_invalid_css` as the
    original does. `css_variables` reads `_variables`, which has no public getter."""

    @property
    def css_variables(self) -> dict[str, str]:
        """The variables this sheet substitutes into CSS (`Stylesheet._variables`)."""
        return self._variables

    def parse_source(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool,
        tie_breaker: int,
        scope: str,
    ) -> list[RuleSet]:
        """The rules in one CSS source, as Textual parses them."""
        return super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)

    def _parse_rules(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        return self.parse_source(css, read_from, is_default_rules, tie_breaker, scope)

    def reparse(self) -> None:
        """As `Stylesheet.reparse`: parse again in a fresh sheet (of this class), so an
        error leaves this one intact."""
        fresh = type(self)(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            fresh.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            fresh.parse()
        except Exception:
            self._invalid_css.update(fresh._invalid_css)
            raise
        self._rules = fresh.rules
        self._rules_map = None
        self.source = fresh.source
        self._require_parse = False

    def copy(self) -> Self:
        """As `Stylesheet.copy`, as a sheet of this class."""
        stylesheet = type(self)(variables=self._variables.copy())
        stylesheet.source = self.source.copy()
        return stylesheet


_NOTHING = DOMNode()
"""Lends every component node the parts it never uses: an empty list of children
(`_nodes`), a message signal (`message_signal`), timers (`_timers`), a query cache
(`_query_one_cache`), disabled messages (`_disabled_messages`) and bindings (`_bindings`)."""


def component_node(component: str) -> DOMNode:
    """A node for styling one component class, as Textual makes one, but sharing the
    parts it never uses (see `_NOTHING`): it is never mounted, has no children, receives
    no messages, holds no focus. Those parts were about half its 6.5 KiB, for each of
    about 80 such nodes in a session (two for every footer key)."""
    node = DOMNode(classes=component)
    node._nodes = _NOTHING._nodes
    node.message_signal = _NOTHING.message_signal
    node._timers = _NOTHING._timers
    node._query_one_cache = _NOTHING._query_one_cache
    node._disabled_messages = _NOTHING._disabled_messages
    node._bindings = _NOTHING._bindings
    return node


class KeepsComponentNodes(Stylesheet):
    """Textual's Stylesheet, restyling a widget's component classes (`option-list--option`,
    `footer-key--key`, ...) in the nodes it made for them last time, instead of new ones.

    Textual styles each component class of a widget through a "virtual" node of its own
    (a whole `DOMNode`, about 6.5 KiB with its styles, bindings and signals) and makes new
    ones every time the widget is styled again: each screen push or pop, focus change or
    class change restyles every widget on the screen. The old nodes hold themselves in
    cycles, so they wait for a full collection; on the SSH host, where every session's
    garbage waits for the same one, they were a good part of a session's memory.

    `_process_component_classes` is Textual 8.2.8's own, but for the kept node (the
    component's styles' node while it is still this widget's) and for how it tells that
    the component's styles changed (their rules before and after, where Textual compares
    the old styles with the new node's: kept, they are the same object). It reads
    `DOMNode._get_component_classes` and `_component_styles`, and attaches a new node with
    `_attach`, as the original does (a lighter one: `component_node`); `_parent` says
    whose a kept node is."""

    def _process_component_classes(self, node: DOMNode) -> None:
        component_classes = node._get_component_classes()
        if component_classes:
            refresh_node = False
            old_component_styles = node._component_styles.copy()
            node._component_styles.clear()
            for component in sorted(component_classes):
                old = old_component_styles.get(component)
                virtual_node = old.node if old is not None else None
                if virtual_node is not None and virtual_node._parent is node:
                    before = virtual_node.styles.base.get_rules()
                    self.apply(virtual_node, animate=False)
                    changed = before != virtual_node.styles.base.get_rules()
                else:
                    virtual_node = component_node(component)
                    virtual_node._attach(node)
                    self.apply(virtual_node, animate=False)
                    changed = old != virtual_node.styles
                refresh_node = refresh_node or changed
                node._component_styles[component] = virtual_node.styles
            if refresh_node:
                node.refresh()


def keep_process_streams(app: App[Any]) -> None:
    """Have `app` leave the process's `sys.stdout` and `sys.stderr` alone. An App
    redirects them to captures of its own (`App._capture_stdout`, `_capture_stderr`)
    while it runs and restores what it found when it ends; with many apps in one process
    ending in any order, that would leave a finished app as the process's stdout.
    Capturing to the streams themselves makes every swap a no-op."""
    app._capture_stdout = sys.stdout  # type: ignore[assignment]
    app._capture_stderr = sys.stderr  # type: ignore[assignment]


STRIP_CACHES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
"""The caches Textual 8.2.8's `Strip.__init__` makes for every strip, with their sizes."""


class _CacheWhenUsed:
    """A Strip slot holding one of its caches, made the first time it is used: the slot's
    own descriptor (`member`) keeps the value, as before."""

    __slots__ = ("member", "size")

    def __init__(self, member: Any, size: int) -> None:
        self.member = member
        self.size = size

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            return self.member.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache[Any, Any] = FIFOCache(self.size)
            self.member.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.member.__set__(strip, value)


TEXTUAL_STRIP_INIT = Strip.__init__
"""Textual's own `Strip.__init__` (tests check that `_strip_init` still matches it)."""


def _strip_init(self: Strip, segments: Any, cell_length: int | None = None) -> None:
    """Textual 8.2.8's `Strip.__init__`, less its seven caches (see `lazy_strip_caches`)."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def lazy_strip_caches() -> None:
    """Have every `Strip` (a line of a drawing) in the process make each of its seven
    caches (`Strip._crop_cache` and the others, FIFOCaches) only when it is first used,
    instead of all seven as it is made.

    A Textual app holds its drawings as strips (the lines each widget last drew, and
    what was cut from them), about a thousand per SSH session at a table, most never
    cropped or restyled again: their empty caches were a fifth of a session's memory
    and a good part of the garbage it leaves for the collector. The strips behave as
    before; a cache is made at its first use. Idempotent; the SSH host turns it on."""
    if Strip.__init__ is _strip_init:
        return
    for name, size in STRIP_CACHES.items():
        setattr(Strip, name, _CacheWhenUsed(Strip.__dict__[name], size))
    Strip.__init__ = _strip_init  # type: ignore[method-assign]


# --- an unhandled exception (cantina/app/__init__.py) --------------------------------------


class OneLineCrash:
    """A mixin for an App: an unhandled exception still ends the app with status 1, as
    Textual's own `App._handle_exception` does, but what it prints as it ends
    (`App._exit_renderables`, Textual's whole traceback with locals) is replaced by the
    one line `crash_line(error)` gives; that method keeps the details where it likes.
    Textual has no public hook between an exception and what it prints for it."""

    def crash_line(self, error: BaseException) -> str:
        """The one line to print; an app that keeps the details says where."""
        return f"{type(error).__name__}: {error}"

    def _fatal_error(self) -> None:
        # Textual's renders its whole traceback with locals, highlighted (a third of a
        # second, on a host's one loop for every session), only for `_handle_exception`
        # below to put the one line in its place: the rest of what it does, no more.
        self.bell()  # type: ignore[attr-defined]
        self._close_messages_no_wait()  # type: ignore[attr-defined]

    def _handle_exception(self, error: Exception) -> None:
        super()._handle_exception(error)  # type: ignore[misc]
        # Plain text, never markup, and never wrapped: one line whatever the width.
        self.error_console.soft_wrap = True  # type: ignore[attr-defined]
        line = Text(self.crash_line(error))
        self._exit_renderables[:] = [line]  # type: ignore[attr-defined]


# --- timing frames (benchmarks/bench_app.py) ----------------------------------------------


def on_each_frame(
    app: App[Any], seen: Callable[[Screen[Any], RenderableType | None], None]
) -> None:
    """Call `seen(screen, renderable)` after each frame `app` composes is displayed.
    Every frame goes through `App._display`, which this wraps; Textual has no public
    hook for a composed frame."""
    display = app._display

    def watched(screen: Screen[Any], renderable: RenderableType | None) -> None:
        display(screen, renderable)
        seen(screen, renderable)

    app._display = watched  # type: ignore[method-assign]


def terminal_output(renderable: RenderableType | None, console: Console) -> str | None:
    """A composed frame as the escape sequences a terminal would get, or None when it is
    no frame update. Headless, `App._display` skips this step; a benchmark does it to
    time what a real terminal's frame costs (`textual._compositor.CompositorUpdate`)."""
    if isinstance(renderable, CompositorUpdate):
        return renderable.render_segments(console)
    return None


def visible_widgets(screen: Screen[Any]) -> Collection[Widget]:
    """The widgets on show in `screen`'s last layout (`Screen._compositor`'s
    `visible_widgets`): a benchmark waits only for those to be drawn."""
    return screen._compositor.visible_widgets


# --- timers: the next beat after falling behind -------------------------------------------

TEXTUAL_TIMER_RUN = timer.Timer._run
"""Textual's own `Timer._run` (8.2.8), which `timers_on_the_beat` replaces."""


async def run_on_the_beat(self: timer.Timer) -> None:
    """`textual.timer.Timer._run` of Textual 8.2.8, but for one number: a timer that
    has fallen behind (`skip`) waits for the next beat of its interval, not the one
    after (Textual counts one beat too many: `int(late / interval + 1)`, then adds one
    more). A screen's update timer pauses itself at each frame and ticks at once when
    resumed after a pause, so the frame after a pause, then one more key within two
    frame periods of it, waited 17 to 33 ms for its frame, not 0 to 17: that was half
    of an SSH player's keystroke -> frame time when they answered as soon as asked."""
    count = 0
    repeat = self._repeat
    interval = self._interval
    await self._active.wait()
    start = time.monotonic()  # what Textual's get_time is off Windows
    while repeat is None or count <= repeat:
        next_timer = start + ((count + 1) * interval)
        now = time.monotonic()
        if self._skip and next_timer < now:
            count = int((now - start) / interval)  # Textual's: int(... + 1)
            continue
        # as Textual's own sleep: asyncio's overshoots by about half a millisecond
        wait = next_timer - time.monotonic() - 0.0005
        if wait > 0:
            await asyncio.sleep(wait)
        count += 1
        await self._active.wait()
        if self._reset:
            start = time.monotonic()
            count = 0
            self._reset = False
            continue
        try:
            await self._tick(next_timer=next_timer, count=count)
        except timer.EventTargetGone:
            break


def timers_on_the_beat() -> None:
    """Every Textual timer in this process ticks on the next beat after falling behind
    (see `run_on_the_beat`); the first hosted app puts it in place, once."""
    timer.Timer._run = run_on_the_beat  # type: ignore[method-assign]


# --- issue 15: a partial frame draws only the rows its dirty regions cover -----------------

TEXTUAL_RENDER_PARTIAL_UPDATE = Compositor.render_partial_update
"""Textual's own `Compositor.render_partial_update` (8.2.8), which `draw_dirty_rows` replaces."""
TEXTUAL_RENDER_CHOPS = Compositor._render_chops
"""Textual's own `Compositor._render_chops` (8.2.8), which `dirty_chops` follows."""


def dirty_chops(
    compositor: Compositor, spans: Sequence[tuple[int, int, int]]
) -> list[dict[int, Strip | None]]:
    """Each line's chops (the pieces between the cuts, the widgets' edges) that the
    update's `spans` show, each filled by the frontmost widget there, as
    `Compositor._render_chops` fills them (its code, Textual 8.2.8, for the drawing of a
    row). Textual draws every widget overlapping the bounding box of the dirty regions,
    each whole; here a widget is drawn only in the rows where a chop of it that the
    spans show is not filled yet by a widget in front: a die that tumbles draws itself,
    not the board, the log and the containers behind them."""
    cuts = compositor.cuts
    shown: dict[int, list[tuple[int, int]]] = {}
    for y, x1, x2 in spans:
        shown.setdefault(y, []).append((x1, x2))
    # only the rows the spans show are read (`ChopsUpdate`): the others share one empty
    unshown: dict[int, Strip | None] = {}
    chops: list[dict[int, Strip | None]] = [unshown] * len(cuts)
    for y in shown:
        chops[y] = dict.fromkeys(cuts[y][:-1])
    if not shown:
        return chops
    first_row, end_row = min(shown), max(shown) + 1
    intersection = Region.intersection
    for widget, (region, clip) in compositor.visible_widgets.items():
        render_region = intersection(region, clip)
        first_cut, last_cut = render_region.column_span
        rows = range(max(render_region.y, first_row), min(render_region.bottom, end_row))
        wanted: list[int] = []
        edges_at: dict[int, list[int]] = {}
        for y in rows:  # empty for a widget above or below every dirty row
            ranges = shown.get(y)
            if not ranges:
                continue
            line = chops[y]
            edges = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
            if any(
                line[left] is None and any(left < x2 and right > x1 for x1, x2 in ranges)
                for left, right in pairwise(edges)
            ):
                wanted.append(y)
                edges_at[y] = edges
        render_x = render_region.x
        while wanted:
            top = bottom = wanted.pop(0)
            while wanted and wanted[0] == bottom + 1:
                bottom = wanted.pop(0)
            height = bottom - top + 1
            crop = Region(render_x - region.x, top - region.y, render_region.width, height)
            for y, strip in zip(range(top, bottom + 1), widget.render_lines(crop), strict=False):
                chops_line = chops[y]
                final_cuts = edges_at[y]
                cut_strips = strip.divide([cut - render_x for cut in final_cuts[1:]])
                get_chops_line = chops_line.get
                for cut, piece in zip(final_cuts, cut_strips, strict=False):
                    if get_chops_line(cut) is None:
                        chops_line[cut] = piece
    return chops


def draw_dirty_rows(self: Compositor) -> ChopsUpdate | None:
    """`Compositor.render_partial_update` of Textual 8.2.8, but with the chops of
    `dirty_chops`: the update sent is the same (the same spans, each chop in them filled
    by the same frontmost widget), drawn at a fraction of the cost."""
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    spans = list(self._regions_to_spans(update_regions))
    chops = dirty_chops(self, spans)
    chop_ends: list[list[int]] = [[]] * len(self.cuts)  # as the chops: only rows shown
    for y, _, _ in spans:
        chop_ends[y] = self.cuts[y][1:]
    return ChopsUpdate(chops, spans, chop_ends)


def partial_frames_draw_dirty_rows() -> None:
    """Every partial frame in this process is drawn by `draw_dirty_rows`; the first hosted
    session puts it in place, once (a frame's drawing was most of a host's work)."""
    Compositor.render_partial_update = draw_dirty_rows  # type: ignore[method-assign]


# --- issue 13 (h13c): a screen shown again ---------------------------------------------


def resume_keeps_styles(screen: Screen[Any], message: Message) -> None:
    """`App.push_screen` tells a screen to resume with its styles refreshed
    (`ScreenResume.refresh_styles`), which restyles every node of it: a new screen's
    nodes were just styled as they mounted (a third of opening a setup screen), and a
    kept one shown again (the back room's setup screen) has the styles it left with,
    unless the app's CSS changed meanwhile (a new theme: `App._css_update_count`, which
    Textual counts up for it). Spared then; restyled, as Textual would, otherwise."""
    if not isinstance(message, ScreenResume):
        return
    generation = screen.app._css_update_count
    styled = getattr(screen, "cantina_styled_at", None)
    if styled is None or styled == generation:
        message.refresh_styles = False
    screen.cantina_styled_at = generation  # type: ignore[attr-defined]


# --- issue 13 (s24-a): a focus change repaints what it changes ------------------------------


def focus_moves_repaint_their_widgets() -> None:
    """A screen's `focused` (a reactive) no longer repaints the whole screen when it
    changes, in every app of this process; the first app made puts it in place, once.

    Textual declares it with `repaint=True` (its `Reactive._repaint`), so every focus
    change (a Tab) drew a full frame: every widget on the screen rendered again, most of a
    Tab's cost in the lobby and the longest step of a session sending Tabs, which another
    player's key waited behind. What a focus change shows is drawn anyway: the widget
    losing the focus and the one gaining it each refresh themselves (`Widget._on_blur`,
    `_on_focus`), containers styled by `:focus-within` are restyled
    (`Screen._update_focus_styles`), and the footer follows the bindings."""
    reactive: Reactive[Any] = vars(Screen)["focused"]
    reactive._repaint = False


# --- issue 15 (s25-c): a strip divided nowhere is no cyclic garbage -------------------------

TEXTUAL_STRIP_DIVIDE = Strip.divide
"""Textual's own `Strip.divide` (tests check that `_divide` still matches its start)."""


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    """Textual 8.2.8's `Strip.divide`, but a strip its cuts leave whole is returned as
    itself without being cached: Textual kept `[self]` in the strip's own cache, a cycle."""
    cuts = [cut for cut in cuts if cut <= self.cell_length]
    if cuts == [self.cell_length]:
        return [self]
    return TEXTUAL_STRIP_DIVIDE(self, cuts)


def strips_kept_out_of_cycles() -> None:
    """Have every `Strip` of the process divided whole (cut only at its end) leave no
    cyclic garbage: Textual's compositor divides each line of each widget at every frame
    it draws, and a line no other widget cuts held itself through its divide cache, so
    it and its segments outlived the frame until the collector found them. Measured at
    24 sessions playing in one host (benchmarks/bench_ssh.py --playing): nearly all the
    young generation's garbage, a young collection every 0.5 s. Idempotent; each SSH
    session's app turns it on."""
    Strip.divide = _divide  # type: ignore[method-assign]


# s25-b: a resize draws one full frame ------------------------------------------------------

TEXTUAL_SCREEN_RESIZED = Screen._screen_resized
"""Textual's own `Screen._screen_resized` (8.2.8), which `resized_in_one_frame` wraps."""


def resized_in_one_frame(self: Screen[Any], size: Size) -> None:
    """`Screen._screen_resized`, less the second full frame Textual draws after it.

    Laying the screen out at its new size (`Screen._refresh_layout`) gives the screen
    itself its new virtual size, a reactive that asks for the screen to be repainted
    whole (`Widget.refresh`: its `_repaint_required`), and then draws a full frame, the
    whole screen being dirty at a new size. That repaint is for a frame already drawn:
    Textual drew a second full frame for it at the next update, a third of a resize's
    cost (a resize was the dearest thing a player could send: bench_ssh.py --costs). A
    repaint asked for before the resize, or any widget's own, is left as it was."""
    before = self._compositor.size
    asked = self._repaint_required
    TEXTUAL_SCREEN_RESIZED(self, size)
    if not asked and before != size and self.is_current and self._compositor.size == size:
        self._repaint_required = False


def resizes_draw_one_frame() -> None:
    """Every screen in this process draws one full frame for a resize (see
    `resized_in_one_frame`); the first hosted session puts it in place, once."""
    Screen._screen_resized = resized_in_one_frame  # type: ignore[method-assign]


# --- s25-a: a game's result opened cheaper --------------------------------------------------


def mark_bindings_ready(footer: Footer) -> None:
    """Tell `footer` its screen's bindings are known (`Footer._bindings_ready`), as its
    first `bindings_changed` would: a footer that composes its keys with its screen (the
    result's, at every game's end) then needs no second composition, and its screen no
    second layout, once its screen first publishes its bindings."""
    footer.set_reactive(_footer.Footer._bindings_ready, True)


def own_resize(screen: Screen[Any], message: Message) -> bool:
    """Whether `message` is the `Resize` a screen posts itself from its own layout
    (`Screen._refresh_layout` sends one to every widget laid out anew, the screen too,
    with its `_sender` the screen): the screen was just laid out at that size, and
    Textual's `_on_resize` lays it out once more, and the screens behind a modal too.
    A resize of the terminal comes from the app (its sender), and is not this."""
    return isinstance(message, Resize) and message._sender is screen and message.size == screen.size


# --- s25-a: the narration's rows finished once ----------------------------------------------


def finished_rows(widget: Widget) -> dict[int, Strip]:
    """The rows of `widget` as its styles last finished them (border, padding, background:
    `Widget._styles_cache`, its `_cache` by row), before its next refresh clears them."""
    return dict(widget._styles_cache._cache)


def keep_finished_rows(widget: Widget, rows: dict[int, Strip]) -> None:
    """Give `widget`'s styles `rows` (by row) as finished already, to draw as they are
    rather than finish their content again (`StylesCache.render` finishes a row that is
    dirty or missing: `_dirty_lines`, `_cache`). Only for rows whose finish does not
    depend on where they are (no border or padding above or below the content)."""
    cache = widget._styles_cache
    cache._cache.update(rows)
    cache._dirty_lines.difference_update(rows)


# frames helper (issue 15): a dialog's background drawn once ------------------------------


class KeptBackground(Visual):
    """What a dialog's screen draws behind its widgets (Textual's `BackgroundScreen`: the
    screen under it, tinted), drawn line by line as Textual draws it whole, and each line
    kept until the screen under it changes there. Any refresh of a dialog's screen (its
    layout, its footer's keys mounting) made Textual draw the whole screen under it again
    (its widgets' lines composed) and tint it: some 15 ms of a host's loop a session for a
    game's result. The screen under it tells the dialog's screen where it changed
    (`Screen._compositor_refresh` refreshes the top screen there: `KeptLines.forget`).
    A kept result dialog shown again for the next game forgets them all (`KeptLines.forget`)."""

    def __init__(self, screen: Screen[Any], background: BackgroundScreen, kept: KeptLines) -> None:
        self.screen = screen
        self.background = background
        self.kept = kept

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        rich_style = style.rich_style
        color = self.background.color
        under_screen = self.background.screen
        kept = self.kept
        key = (width, rich_style, color, under_screen, under_screen.size)
        if kept.key != key:
            kept.key = key
            kept.lines.clear()
        rows = range(under_screen.size.height if height is None else height)
        if all(y in kept.lines for y in rows):
            return [kept.lines[y][1] for y in rows]
        under = under_screen._compositor.render_strips()
        app = self.screen.app
        options_ = app.console_options.update(highlight=False, width=width, height=1)
        strips: list[Strip] = []
        for y, line in zip(rows, under, strict=False):
            known = kept.lines.get(y) or kept.stale.get(y)
            if known is not None and known[0] == line:
                kept.lines[y] = known
                strips.append(known[1])
                continue
            tinted = BackgroundScreen.process_segments(line, color)
            renderable = self.screen.post_render(Segments(tinted), rich_style)
            segments = app.console.render(renderable, options_)
            cropped = Segment.split_and_crop_lines(
                segments, width, include_new_lines=False, pad=False
            )
            strip = Strip(next(iter(cropped), []))
            kept.lines[y] = (line, strip)
            strips.append(strip)
        kept.stale.clear()
        return strips

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.screen.size.height


@dataclass
class KeptLines:
    """A dialog screen's tinted lines by row, each with the line under it it was made
    from (`stale` when the screen under it changed there: tinted again unless the line
    under it came back the same), and what they were made for."""

    key: tuple[object, ...] = ()
    lines: dict[int, tuple[Strip, Strip]] = field(default_factory=dict)
    stale: dict[int, tuple[Strip, Strip]] = field(default_factory=dict)

    def forget(self, regions: Iterable[Region]) -> None:
        """The screen under the dialog changed in `regions` (or anywhere, if none)."""
        regions = list(regions)
        if not regions:
            self.stale.update(self.lines)
            self.lines.clear()
            return
        for region in regions:
            for y in region.line_range:
                if y in self.lines:
                    self.stale[y] = self.lines.pop(y)


def kept_background(screen: Screen[Any], drawn: RenderableType, kept: KeptLines) -> Any:
    """What `screen.render()` drew (`drawn`), with a dialog's background drawn by
    `KeptBackground` from `kept` (anything else as it is)."""
    if isinstance(drawn, BackgroundScreen):
        return KeptBackground(screen, drawn, kept)
    return drawn


# vesc (issue 13, attack c): a kept screen shown again draws the frame it left with --------

TEXTUAL_RENDER_FULL_UPDATE = Compositor.render_full_update
"""Textual's own `Compositor.render_full_update` (8.2.8), which `keep_full_frames` wraps."""


DRAWS_FROM_CACHE: frozenset[Callable[..., Any]] = frozenset(
    {Widget.render_lines, OptionList.render_lines}
)
"""`render_lines` methods that draw a widget's rows from its styles cache, as Textual's own
does (OptionList's brings its lines' index up to date first)."""


@dataclass
class KeptFrame:
    """A screen's last full frame (`Compositor.render_full_update`), and what it was drawn
    from (see `frame_sources`)."""

    sources: list[object]
    update: LayoutUpdate


def frame_sources(
    compositor: Compositor, drawn_from_cache: Collection[Callable[..., Any]] = ()
) -> list[object] | None:
    """What a full frame of `compositor` is drawn from (None: not only from the widgets'
    styles caches): the size, the line filters, and for each widget on show, front to
    back, its place, its hover style (links light up under the mouse) and the cached row
    (`Strip`) of each of its lines on show, each drawn first if it is not cached (dirty,
    or not drawn yet), as the frame would draw it.

    Textual draws a full frame by asking every widget on show for its lines; a widget
    gives the rows in its styles cache, those not cached drawn anew, filtered and cropped:
    the same rows, the same frame. Whatever changes a widget's look (its content, a style,
    a theme, a parent's background: `ColorProperty` refreshes the children) refreshes it,
    which dirties or clears its cache; a layout changes the places. `drawn_from_cache`:
    more `render_lines` methods that draw from the cache (see `DRAWS_FROM_CACHE`)."""
    sources: list[object] = [compositor.size]
    filters: list[object] | None = None
    contains_region = Region.contains_region
    intersection = Region.intersection
    for widget, (region, clip) in compositor.visible_widgets.items():
        kind = type(widget)
        method = kind.render_lines
        if (
            widget.BLANK
            or (method not in DRAWS_FROM_CACHE and method not in drawn_from_cache)
            or kind.get_line_filters is not Widget.get_line_filters
            or not widget.is_attached
        ):
            return None
        if filters is None:
            filters = list(widget.app.get_line_filters())
            sources.append(filters)
        if contains_region(clip, region):
            crop = Region(0, 0, region.width, region.height)
        else:
            x, y, width, height = intersection(region, clip)
            if not (width and height):
                continue  # not drawn
            crop = Region(x - region.x, y - region.y, width, height)
        lines = crop.line_range
        cache = widget._styles_cache
        rows = cache._cache
        if (
            cache._width != region.width
            or not cache._dirty_lines.isdisjoint(lines)
            or any(y not in rows for y in lines)
        ):
            widget.render_lines(crop)  # as the frame would (Compositor._get_renders)
            rows = cache._cache
        sources += (widget, region, clip, widget.hover_style if widget.auto_links else None)
        sources += (rows[y] for y in lines)
    return sources


def keep_full_frames(
    screen: Screen[Any], drawn_from_cache: Collection[Callable[..., Any]] = ()
) -> None:
    """`screen`'s full frames are kept: one drawn from the same sources as the last
    (`frame_sources`) is that frame again, not drawn anew.

    Textual draws a full frame whenever a screen is shown (pushed, or back on top): every
    widget on show asked for its lines, cut at every other's edges and joined, 5 to 10 ms
    of the host's loop for the setup screen (67 widgets) and the back room, with nothing
    in them changed since they were last on show (`v` and Esc, over and over: attack c
    of bench_ssh --abuse; another player's key arriving meanwhile waited for all of it).
    Checking the sources is a look at each widget's cached rows, and the drawing of those
    a refresh left dirty (the screen's own, always: Textual refreshes a screen shown
    again), compared with the frame's, most of them the very same rows."""
    compositor = screen._compositor
    kept: list[KeptFrame] = []

    def render_full_update(simplify: bool = False) -> LayoutUpdate:
        if simplify:  # a screenshot's (SVG): as Textual draws it
            return TEXTUAL_RENDER_FULL_UPDATE(compositor, simplify)
        if kept and kept[0].update.region == compositor.size.region:
            sources = frame_sources(compositor, drawn_from_cache)
            if sources is not None and sources == kept[0].sources:
                compositor._dirty_regions.clear()
                return kept[0].update
        kept.clear()
        update = TEXTUAL_RENDER_FULL_UPDATE(compositor, simplify)
        sources = frame_sources(compositor, drawn_from_cache)
        if sources is not None:
            kept.append(KeptFrame(sources, update))
        return update

    compositor.render_full_update = render_full_update  # type: ignore[method-assign]
