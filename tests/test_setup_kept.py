"""The back room keeps a session's setup screen (screens/backroom.py `action_new`): `v`
again shows the same screen, its picks as left, without making it anew or restyling it,
and it looks as the first time; another game's setup replaces it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from test_chat import ALICE, BOB, INSTANT, hosted
from textual._compositor import LayoutUpdate
from textual._styles_cache import StylesCache
from textual.app import App
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Select

from cantina.lobby import Lobby
from cantina.ssh.app import HostedApp
from screens.backroom import HostSetupScreen, LobbyScreen, WaitingScreen
from screens.textual_compat import TEXTUAL_RENDER_FULL_UPDATE


@contextlib.asynccontextmanager
async def back_room() -> AsyncIterator[tuple[HostedApp, Any]]:
    """A hosted app in the back room (Alice's), and its pilot."""
    lobby = Lobby(pace=INSTANT)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        yield app, pilot
    lobby.close_all()


async def until_ready(pilot: Any, app: HostedApp) -> HostSetupScreen:
    for _ in range(100):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, HostSetupScreen) and screen.ready:
            await pilot.pause()
            return screen
    raise AssertionError("the setup screen never came up")


async def test_a_setup_opened_again_is_the_same_with_its_picks():
    async with back_room() as (app, pilot):
        await pilot.press("v")
        first = await until_ready(pilot, app)
        first_look = app.export_screenshot()
        named = first.query_one("#name-0", Input).value  # the player's own name
        first.query_one("#name-0", Input).value = "Ada"
        first.query_one("#seat-count", Select).value = 5
        await pilot.pause()
        widgets = list(first.walk_children())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        composed: list[str] = []
        plain = HostSetupScreen.compose

        def noting(screen: HostSetupScreen) -> Any:
            composed.append(screen.game)
            return plain(screen)

        HostSetupScreen.compose = noting  # type: ignore[method-assign]
        try:
            await pilot.press("v")
            again = await until_ready(pilot, app)
        finally:
            HostSetupScreen.compose = plain  # type: ignore[method-assign]
        assert again is first and composed == []
        assert list(again.walk_children()) == widgets
        assert again.query_one("#name-0", Input).value == "Ada"
        assert again.picked("#seat-count") == 5
        assert again.query_one("#seat-row-4").display
        # As it was left, it is drawn as it was then, less what was changed.
        again.query_one("#name-0", Input).value = named
        again.query_one("#seat-count", Select).value = 4
        await pilot.pause()
        await pilot.pause()
        assert app.export_screenshot() == first_look


async def test_another_games_setup_replaces_the_kept_one():
    async with back_room() as (app, pilot):
        await pilot.press("v")
        vigo = await until_ready(pilot, app)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("d")
        valdes = await until_ready(pilot, app)
        assert valdes is not vigo and valdes.game == "valdes"
        await pilot.pause()
        assert not vigo.is_attached, "the old one is taken down"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("d")
        assert await until_ready(pilot, app) is valdes


async def test_a_kept_setup_is_restyled_again_only_after_a_new_theme():
    restyled: list[DOMNode] = []
    async with back_room() as (app, pilot):
        apply = app.stylesheet.apply

        def counting(node: DOMNode, *args: Any, **kwargs: Any) -> None:
            restyled.append(node)
            apply(node, *args, **kwargs)

        app.stylesheet.apply = counting  # type: ignore[method-assign]
        await pilot.press("v")
        setup = await until_ready(pilot, app)
        await pilot.press("escape")
        await pilot.pause()
        restyled.clear()
        await pilot.press("v")
        await until_ready(pilot, app)
        assert len(restyled) < 10, len(restyled)  # not each of its hundred nodes
        await pilot.press("escape")
        await pilot.pause()
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        await pilot.pause()
        restyled.clear()
        await pilot.press("v")
        await until_ready(pilot, app)
        assert set(setup.walk_children()) <= set(restyled)  # the new theme: all of it


async def test_a_setup_a_table_was_set_from_is_kept_no_more():
    """Setting a table from the kept setup lets it go (a seated player holds none): it
    is taken down, and `v` later makes a new one."""
    async with back_room() as (app, pilot):
        await pilot.press("v")
        first = await until_ready(pilot, app)
        await pilot.press("ctrl+s")
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, WaitingScreen) and not first.is_attached:
                break
        assert isinstance(app.screen, WaitingScreen)
        assert not first.is_attached, "taken down"
        assert not app.is_screen_installed(first)
        (lobby_screen,) = [s for s in app.screen_stack if isinstance(s, LobbyScreen)]
        assert lobby_screen.kept_setup is None
        await pilot.press("escape")  # leave the waiting table
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, LobbyScreen):
                break
        await pilot.press("v")
        assert await until_ready(pilot, app) is not first


async def test_the_setup_and_the_back_room_shown_again_are_their_kept_frames():
    """`v` and Esc again: each screen's full frame is the one it was left with (none of
    its widgets asked for its lines, but the screen's own background, which Textual
    refreshes as it is shown, and the back room's list, which it refreshes), and it paints
    what Textual's own drawing would."""
    async with back_room() as (app, pilot):
        lobby_screen = app.screen
        for _ in range(2):
            await pilot.press("v")
            setup = await until_ready(pilot, app)
            await pilot.press("escape")
            await pilot.pause()
        drawn: list[Widget] = []
        frames: list[tuple[Screen[Any], Any, list[Widget]]] = []
        render_widget = StylesCache.render_widget
        display = App._display

        def noting(cache: StylesCache, widget: Widget, crop: Any) -> Any:
            drawn.append(widget)
            return render_widget(cache, widget, crop)

        def shown(app: App[Any], screen: Screen[Any], renderable: Any) -> None:
            frames.append((screen, renderable, drawn[:]))  # and what was drawn for it
            drawn.clear()
            display(app, screen, renderable)

        StylesCache.render_widget = noting  # type: ignore[method-assign]
        App._display = shown  # type: ignore[method-assign]
        try:
            await pilot.press("v")
            assert await until_ready(pilot, app) is setup
            await pilot.press("escape")
            await pilot.pause()
            await pilot.pause()
        finally:
            StylesCache.render_widget = render_widget  # type: ignore[method-assign]
            App._display = display  # type: ignore[method-assign]
        assert app.screen is lobby_screen
        full = [(s, r, d) for s, r, d in frames if isinstance(r, LayoutUpdate)]
        assert [s for s, _, _ in full] == [setup, lobby_screen], "one full frame each"
        tables = lobby_screen.query_one("#tables")
        for screen, _, drew in full:
            assert set(drew) <= {screen, tables}, {type(w).__name__ for w in drew}
        console = app.console
        for screen, update, _ in full:
            textual = TEXTUAL_RENDER_FULL_UPDATE(screen._compositor)
            assert update.render_segments(console) == textual.render_segments(console)


async def test_a_chat_line_said_while_the_setup_is_shown_is_in_the_back_rooms_frame_after():
    """The back room's kept frame is used again only when no widget would draw otherwise:
    bob speaks while alice is in a table's setup (her chat panel, under it, takes the
    line), and the frame she comes back to is Textual's own drawing, with his line in it,
    not the one she left."""
    async with back_room() as (app, pilot):
        lobby_screen = app.screen
        for _ in range(2):  # the setup kept, each screen's frame kept
            await pilot.press("v")
            await until_ready(pilot, app)
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("v")
        await until_ready(pilot, app)
        assert app.lobby is not None
        app.lobby.chat.say(BOB, "anyone for Val-Des")
        await pilot.pause()
        frames: list[Any] = []
        display = App._display

        def shown(app: App[Any], screen: Screen[Any], renderable: Any) -> None:
            frames.append((screen, renderable))
            display(app, screen, renderable)

        App._display = shown  # type: ignore[method-assign]
        try:
            await pilot.press("escape")
            await pilot.pause()
            await pilot.pause()
        finally:
            App._display = display  # type: ignore[method-assign]
        assert app.screen is lobby_screen
        full = [update for screen, update in frames if isinstance(update, LayoutUpdate)]
        assert full, "the back room drawn whole as it is shown again"
        console = app.console
        textual = TEXTUAL_RENDER_FULL_UPDATE(lobby_screen._compositor)
        assert full[0].render_segments(console) == textual.render_segments(console)
        assert "anyone for Val-Des" in full[0].render_segments(console)
