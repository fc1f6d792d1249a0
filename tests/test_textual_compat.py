"""What screens/textual_compat.py takes from Textual's internals is still there.

Each private name and signature the compat module relies on is one case below, so a
Textual upgrade that moves one fails a test naming it (the compat module's docstring for
it says what it was for). The Textual code the module copies is checked too: when the
original changes, the copy must be read against it again. And no other module may import
Textual's private modules, so the compat module stays the one place.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import random
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.segment import ControlType
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

import screens.textual_compat as compat

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Piece:
    """One private name: `module:Owner.name`, with the parameters the compat module passes
    it (in order, `self` included for a function taken from its class) when it is called,
    or `instance` when it is an attribute Textual sets on each instance."""

    where: str
    params: tuple[str, ...] | None = None
    instance: bool = False

    def __str__(self) -> str:
        return self.where


PIECES = [
    Piece("textual.timer:Timer._run", params=("self",)),
    Piece("textual.timer:Timer._tick", params=("self", "next_timer", "count")),
    Piece("textual.timer:Timer._repeat", instance=True),
    Piece("textual.timer:Timer._interval", instance=True),
    Piece("textual.timer:Timer._active", instance=True),
    Piece("textual.timer:Timer._skip", instance=True),
    Piece("textual.timer:Timer._reset", instance=True),
    Piece(
        "textual.widgets._footer:FooterKey",
        params=("key", "key_display", "description", "action", "disabled", "tooltip"),
    ),
    Piece("textual.widgets._footer:FooterKey._disabled", instance=True),
    Piece("textual.widgets._footer:Footer._bindings_ready"),
    Piece("textual.widgets._footer:Footer._closing", instance=True),
    Piece("textual.widgets._footer:Footer._closed", instance=True),
    Piece("textual.dom:DOMNode._node_bases"),
    Piece("textual.app:App._refresh_truecolor_filter", params=("self", "theme")),
    Piece(
        "textual._xterm_parser:XTermParser._parse_extended_key.__wrapped__",
        params=("self", "sequence"),
    ),
    Piece("textual._xterm_parser:XTermParser.feed", params=("self", "data")),
    Piece("textual._xterm_parser:XTermParser.tick", params=("self",)),
    Piece("textual._xterm_parser:XTermParser.parse", params=("self", "token_callback")),
    Piece("textual._xterm_parser:XTermParser._gen", instance=True),
    Piece("textual._xterm_parser:XTermParser._awaiting", instance=True),
    Piece("textual._xterm_parser:XTermParser._tokens", instance=True),
    Piece("textual._xterm_parser:XTermParser._timeout_time", instance=True),
    Piece("textual.app:App._exit", instance=True),
    Piece("textual.css.stylesheet:Stylesheet", params=("variables",)),
    Piece(
        "textual.css.stylesheet:Stylesheet._parse_rules",
        params=("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"),
    ),
    Piece("textual.css.stylesheet:Stylesheet._variables", instance=True),
    Piece("textual.css.stylesheet:Stylesheet._invalid_css", instance=True),
    Piece("textual.css.stylesheet:Stylesheet._rules", instance=True),
    Piece("textual.css.stylesheet:Stylesheet._rules_map", instance=True),
    Piece("textual.css.stylesheet:Stylesheet._require_parse", instance=True),
    Piece("textual.app:App._handle_exception", params=("self", "error")),
    Piece("textual.app:App._exit_renderables", instance=True),
    Piece("textual.app:App._capture_stdout", instance=True),
    Piece("textual.app:App._capture_stderr", instance=True),
    Piece("textual.app:App._display", params=("self", "screen", "renderable")),
    Piece("textual._compositor:CompositorUpdate.render_segments", params=("self", "console")),
    Piece("textual.screen:Screen._compositor", instance=True),
    Piece("textual._compositor:Compositor.visible_widgets"),
    *(
        Piece(f"textual.strip:Strip.{name}")
        for name in (*compat.STRIP_CACHES, "_segments", "_cell_length", "_render_cache")
    ),
    Piece("textual.app:App._fatal_error", params=("self",)),
    Piece("textual.app:App._close_messages_no_wait", params=("self",)),
    Piece("textual.app:App._screen_stack", instance=True),
    *(
        Piece(f"textual.screen:Screen.{name}", instance=True)
        for name in (
            "_layout_required",
            "_repaint_required",
            "_recompose_required",
            "_dirty_widgets",
        )
    ),
    Piece("textual.strip:Strip._link_ids"),
    Piece("textual.strip:Strip._cell_count"),
    Piece("textual.dom:DOMNode._get_component_classes"),
    Piece("textual.widgets._select:SelectCurrent", params=("placeholder",)),
    Piece("textual.widgets._select:SelectCurrent.has_value"),
    Piece("textual.widgets._select:SelectOverlay", params=("type_to_search",)),
    Piece("textual.widgets._select:Select._allow_blank", instance=True),
    Piece("textual.widgets._select:Select._type_to_search", instance=True),
    Piece("textual.dom:DOMNode._component_styles", instance=True),
    Piece("textual.dom:DOMNode._attach", params=("self", "parent")),
    Piece("textual.dom:DOMNode._parent"),
    # issue 15: partial frames drawn in their dirty rows only
    Piece("textual._compositor:Compositor._dirty_regions", instance=True),
    Piece("textual._compositor:Compositor._regions_to_spans"),
    Piece("textual._compositor:Compositor._get_renders", params=("self", "crop")),
    Piece(
        "textual._compositor:Compositor._render_chops",
        params=("self", "crop", "is_rendered_line"),
    ),
    Piece("textual._compositor:ChopsUpdate", params=("chops", "spans", "chop_ends")),
    *(
        Piece(f"textual.dom:DOMNode.{name}", instance=True)
        for name in ("_nodes", "_timers", "_query_one_cache", "_disabled_messages", "_bindings")
    ),
    # issue 13 (h13c): a kept screen shown again is not restyled unless the CSS changed
    Piece("textual.app:App._css_update_count", instance=True),
    # issue 13 (s24-a): a focus change repaints its widgets, not the whole screen
    Piece("textual.screen:Screen.focused._repaint"),
    Piece("textual.widget:Widget._on_focus", params=("self", "event")),  # what still repaints
    Piece("textual.widget:Widget._on_blur", params=("self", "event")),
    Piece("textual.screen:Screen._update_focus_styles", params=("self", "focused", "blurred")),
    # s25-b: a resize draws one full frame
    Piece("textual.screen:Screen._screen_resized", params=("self", "size")),
    Piece("textual.screen:Screen._refresh_layout", params=("self", "size")),
    Piece("textual.screen:Screen._compositor", instance=True),
    Piece("textual.screen:Screen._repaint_required", instance=True),
    # s25-a: a game's result opened cheaper (and Screen._refresh_layout, above: its Resize)
    Piece("textual.message:Message._sender", instance=True),
    # s25-a: the narration's rows finished once
    Piece("textual.widget:Widget._styles_cache", instance=True),
    Piece("textual._styles_cache:StylesCache._cache", instance=True),
    Piece("textual._styles_cache:StylesCache._dirty_lines", instance=True),
    # frames helper (issue 15): a dialog's background kept by row (KeptBackground): the
    # screen under it composed, and the top screen refreshed where the one under it changed
    Piece("textual._compositor:Compositor.render_strips", params=("self",)),
    Piece("textual.screen:Screen._compositor_refresh"),
    # vesc (issue 13, attack c): a screen's full frame kept while drawn from the same rows
    Piece("textual._compositor:Compositor.render_full_update", params=("self", "simplify")),
    Piece("textual._compositor:LayoutUpdate", params=("strips", "region")),
    Piece("textual._styles_cache:StylesCache._width", instance=True),
    Piece("textual._styles_cache:StylesCache._cache", instance=True),
    Piece("textual._styles_cache:StylesCache._dirty_lines", instance=True),
    Piece("textual.widget:Widget._styles_cache", instance=True),
    Piece("textual._compositor:Compositor._dirty_regions", instance=True),
]

INSTANCES: dict[str, Callable[[type], Any]] = {
    "FooterKey": lambda cls: cls("a", "a", "A", "act", disabled=True),
    "Stylesheet": lambda cls: cls(),
    "App": lambda cls: cls(),
    "Compositor": lambda cls: cls(),
    "Screen": lambda cls: cls(),
    "Footer": lambda cls: cls(),
    "Timer": lambda cls: cls(DOMNode(), 1.0),
    "XTermParser": lambda cls: cls(),
    "DOMNode": lambda cls: cls(),
    "Select": lambda cls: cls([("a", 1)]),
    "Message": lambda cls: cls(),
    "Widget": lambda cls: cls(),
    "StylesCache": lambda cls: cls(),
}
"""How to make an instance of an owner whose instances carry a private attribute."""


def missing(piece: Piece) -> str | None:
    """What of `piece` the installed Textual lacks, in words; None when it is all there."""
    module_name, _, path = piece.where.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError:
        return f"module {module_name} cannot be imported"
    *owners, name = path.split(".")
    for part in owners:
        try:
            found = inspect.getattr_static(found, part)
        except AttributeError:
            return f"{module_name} has no {part} (looking for {path})"
    if piece.instance:
        owner = found
        try:
            found = inspect.getattr_static(INSTANCES[owner.__name__](owner), name)
        except AttributeError:
            return f"a {owner.__name__} instance has no attribute {name}"
    else:
        try:
            found = inspect.getattr_static(found, name)
        except AttributeError:
            return f"{module_name} has no {path}"
    if piece.params is not None:
        try:
            names = tuple(inspect.signature(found).parameters)
        except (TypeError, ValueError):
            return f"{path} cannot be called any more"
        if names[: len(piece.params)] != piece.params:
            return f"{path} takes {names}, the compat module passes {piece.params}"
    return None


@pytest.mark.parametrize("piece", PIECES, ids=str)
def test_textual_still_has(piece: Piece) -> None:
    assert missing(piece) is None, f"Textual changed: {missing(piece)}"


@pytest.mark.parametrize(
    ("piece", "said"),
    [
        (Piece("textual._no_such_module:Thing"), "cannot be imported"),
        (Piece("textual.widgets._footer:NoSuchKey._disabled"), "has no NoSuchKey"),
        (Piece("textual.widgets._footer:Footer._no_such_name"), "has no Footer._no_such_name"),
        (Piece("textual.app:App._no_such_name", instance=True), "instance has no attribute"),
        (Piece("textual.app:App._display", params=("self", "frame")), "takes"),
        (Piece("textual.dom:DOMNode._node_bases", params=("self",)), "cannot be called"),
    ],
    ids=str,
)
def test_a_missing_piece_is_reported(piece: Piece, said: str) -> None:
    """The check is not vacuous: a made-up name, module or parameter is reported."""
    assert said in (missing(piece) or "")


COPIES = {
    "textual.app:App._watch_theme": ("585f469c9ae8ca2d", "start_with_theme"),
    "textual.css.stylesheet:Stylesheet.reparse": ("d84aac4b3e199dd5", "ParseHookStylesheet"),
    "textual.css.stylesheet:Stylesheet.copy": ("6df8af9e22f04c35", "ParseHookStylesheet"),
    "textual.css.stylesheet:Stylesheet._process_component_classes": (
        "2b4c7f88ca615c32",
        "KeepsComponentNodes",
    ),
    "screens.textual_compat:TEXTUAL_STRIP_INIT": ("b7f54386d0354060", "_strip_init"),
    "screens.textual_compat:TEXTUAL_TIMER_RUN": ("92f4923ce3b2fa97", "run_on_the_beat"),
    "textual.widgets._select:Select.compose": ("df807fa1156e717d", "select_parts"),
    "screens.textual_compat:TEXTUAL_RENDER_PARTIAL_UPDATE": ("342f61fb3b24dffe", "draw_dirty_rows"),
    "screens.textual_compat:TEXTUAL_RENDER_CHOPS": ("08dba28b936cc6c0", "dirty_chops"),
    # issue 15 (s25-c): a strip divided whole is no cyclic garbage
    "screens.textual_compat:TEXTUAL_STRIP_DIVIDE": ("43e331eea3920b97", "_divide"),
}
"""Textual code the compat module copies, with a digest of the original's source."""


def test_every_private_name_in_the_compat_module_is_checked() -> None:
    """A private name the compat module uses without a case here would go unchecked."""
    source = Path(compat.__file__).read_text()
    used = set(re.findall(r"\.(_[a-z]\w*)", source))
    assert "_bindings_ready" in used and "_compositor" in used
    wheres = [piece.where for piece in PIECES] + list(COPIES)
    checked = {name for where in wheres for name in where.replace(":", ".").split(".")}
    assert used <= checked, f"add a Piece for {sorted(used - checked)}"


@pytest.mark.parametrize("original", COPIES)
def test_copied_textual_code_is_unchanged(original: str) -> None:
    digest, copy = COPIES[original]
    module_name, _, path = original.partition(":")
    found: Any = importlib.import_module(module_name)
    for part in path.split("."):
        found = getattr(found, part)
    source = textwrap.dedent(inspect.getsource(found))
    assert hashlib.sha256(source.encode()).hexdigest()[:16] == digest, (
        f"Textual's {path} changed: read {copy} in screens/textual_compat.py against it, "
        "then update its digest here"
    )


def private_textual_imports(path: Path) -> list[str]:
    """The private Textual modules (a name part starting with _) `path` imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "textual" and any(part.startswith("_") for part in parts[1:]):
                found.append(name)
    return found


def test_only_the_compat_module_imports_textuals_private_modules() -> None:
    files = [
        path
        for folder in ("cantina", "screens", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != Path(compat.__file__).resolve()
    ]
    assert len(files) > 20
    leaks = {
        str(p.relative_to(ROOT)): found for p in files if (found := private_textual_imports(p))
    }
    assert leaks == {}, "import these through screens/textual_compat.py"


def test_the_import_check_catches_a_private_import(tmp_path: Path) -> None:
    leaky = tmp_path / "leaky.py"
    leaky.write_text("from textual.widgets._footer import FooterKey\nimport textual._compositor\n")
    assert private_textual_imports(leaky) == [
        "textual.widgets._footer",
        "textual.widgets._footer.FooterKey",
        "textual._compositor",
    ]


# --- issue 15: partial frames drawn in their dirty rows only ---------------------------------


class Board(App[None]):
    """A table's shape: a status line, a board of small widgets beside a log, a bar."""

    CSS = """
    #body { height: 1fr; }
    #board { width: 30; }
    .cell { height: 3; width: 7; }
    #status, #prompt { height: 1; }
    #log { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("status", id="status")
        with Horizontal(id="body"):
            with Vertical(id="board"):
                for n in range(4):
                    yield Static(f"d{n}", classes="cell")
            yield Static("log", id="log")
        yield Static("prompt", id="prompt")


def painted(update: compat.CompositorUpdate, console: Console) -> dict[tuple[int, int], Any]:
    """What `update` paints on a terminal: each cell's character and style, by place."""
    cells: dict[tuple[int, int], Any] = {}
    x = y = 0
    for segment in console.render(update):
        if segment.control:
            for code in segment.control:
                if code[0] == ControlType.CURSOR_MOVE_TO:
                    x, y = code[1], code[2]
            continue
        for char in segment.text:
            cells[x, y] = (char, segment.style)
            x += 1
    return cells


def counted(widget: Widget, drawn: list[Widget]) -> Callable[[Region], Any]:
    """`widget.render_lines`, noting the widget in `drawn` at each call."""
    lines = widget.render_lines

    def render_lines(crop: Region) -> Any:
        drawn.append(widget)
        return lines(crop)

    return render_lines


async def test_dirty_rows_send_what_textual_sends() -> None:
    """After random changes to random widgets (a toast over some of them), the update
    drawn in the dirty rows only paints the same cells, in the same characters and
    styles, as Textual's own for the same dirty regions; and it draws fewer widgets."""
    app = Board()
    chance = random.Random(15)
    async with app.run_test(size=(60, 16)) as pilot:
        app.notify("a toast over the log", timeout=60)
        await pilot.pause()
        compositor = app.screen._compositor
        console = app.console
        fewer = 0
        for turn in range(40):
            shown = [w for w in app.query(Static) if w in compositor.visible_widgets]
            changed = chance.sample(shown, chance.randint(1, 3))
            for widget in changed:
                widget.update(f"{widget.id or 'd'} {turn}\n{chance.random():.3f}")
            await pilot.pause()  # drawn: now mark them dirty again, as a repaint does
            changed = [w for w in changed if w in compositor.visible_widgets]
            dirty = {
                region.intersection(clip)
                for region, clip in (compositor.visible_widgets[w] for w in changed)
                if clip.overlaps(region)
            }
            if turn % 3 == 0:  # and a part of the screen, as a widget's own region
                x, y = chance.randrange(60), chance.randrange(16)
                dirty.add(Region(x, y, chance.randint(1, 60 - x), chance.randint(1, 16 - y)))
            compositor._dirty_regions.update(dirty)
            drawn: list[Widget] = []
            for widget in compositor.visible_widgets:
                widget.render_lines = counted(widget, drawn)  # type: ignore[method-assign]
            theirs = compat.TEXTUAL_RENDER_PARTIAL_UPDATE(compositor)
            textual_drew = len(drawn)
            drawn.clear()
            compositor._dirty_regions.update(dirty)
            ours = compat.draw_dirty_rows(compositor)
            for widget in compositor.visible_widgets:
                del widget.render_lines
            assert theirs is not None and ours is not None
            assert painted(ours, console) == painted(theirs, console)
            fewer += len(set(drawn)) < textual_drew
        assert fewer > 10


# --- vesc (issue 13, attack c): a screen's full frame kept -------------------------------


class Hot(Board):
    CSS = Board.CSS + "\n.hot { background: darkred; }\n"


def drawing_noted(compositor: Any) -> tuple[Any, list[StylesCache]]:
    """`compositor`'s full frame, and the styles caches asked for lines as it was made."""
    drawn: list[StylesCache] = []
    plain = StylesCache.render_widget

    def noting(cache: StylesCache, widget: Widget, crop: Region) -> Any:
        drawn.append(cache)
        return plain(cache, widget, crop)

    StylesCache.render_widget = noting  # type: ignore[method-assign]
    try:
        return compositor.render_full_update(), drawn
    finally:
        StylesCache.render_widget = plain  # type: ignore[method-assign]


async def test_a_kept_full_frame_paints_what_textual_paints() -> None:
    """After random changes (a widget's text, its background, a container's class, a
    toast, the widgets moved), or none, the full frame of a screen that keeps its frames
    paints the same cells as Textual's own drawing of it, both at once (the changed
    widgets dirty, not yet drawn: a screen under another) and after Textual's next
    frames; with nothing changed it is the frame kept, no widget asked for its lines."""
    app = Hot()
    chance = random.Random(13)
    async with app.run_test(size=(60, 16)) as pilot:
        compat.keep_full_frames(app.screen)
        await pilot.pause()
        compositor = app.screen._compositor
        console = app.console
        kept = 0
        previous = compositor.render_full_update()
        for turn in range(60):
            action = chance.choice(["none", "none", "text", "background", "class", "toast", "move"])
            statics = [w for w in app.query(Static) if w in compositor.visible_widgets]
            if action == "text":
                chance.choice(statics).update(f"turn {turn}")
            elif action == "background":
                chance.choice(statics).styles.background = chance.choice(["navy", "teal"])
            elif action == "class":
                app.query_one("#board").toggle_class("hot")
            elif action == "toast":
                app.notify(f"toast {turn}", timeout=0.2)
            elif action == "move":  # the rest move up or down a row, their lines the same
                status = app.query_one("#status")
                status.display = not status.display
            for _ in range(2):  # at once, then once Textual has drawn its frames
                ours, drawn = drawing_noted(compositor)
                theirs = compat.TEXTUAL_RENDER_FULL_UPDATE(compositor)
                assert painted(ours, console) == painted(theirs, console), action
                if action == "none":
                    assert ours is previous and drawn == [], "kept, nothing drawn"
                    kept += 1
                previous = ours
                await pilot.pause()
        assert kept > 10
