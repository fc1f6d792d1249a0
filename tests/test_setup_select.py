"""The setup screen's lists (screens/setup.py `Choice`): made in the style they end in, so
mounting one restyles none of its parts again, and they look and work as Textual's own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from test_chat import ALICE, INSTANT, NoTerminal, hosted
from textual.app import App, ComposeResult
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Select

from cantina.app import CantinaApp
from cantina.lobby import Lobby
from cantina.ssh.app import HostedApp
from screens.backroom import HostSetupScreen
from screens.setup import Choice, SetupScreen

OPTIONS = [("one", 1), ("two", 2), ("three", 3)]


class Lists(App[None]):
    def __init__(self, kind: type[Select[Any]], blank: bool = False, compact: bool = True) -> None:
        super().__init__()
        self.kind = kind
        self.blank, self.compact = blank, compact
        self.restyled: list[str] = []

    def compose(self) -> ComposeResult:
        value = Select.NULL if self.blank else 2
        yield self.kind(
            OPTIONS, value=value, allow_blank=self.blank, compact=self.compact, id="list"
        )

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        if isinstance(node.parent, Select):  # one of a list's parts
            self.restyled.append(type(node).__name__)
        super().update_styles(node, animate)


def parts(app: Lists) -> list[tuple[str, frozenset[str]]]:
    select = app.query_one("#list", Select)
    return [(type(part).__name__, frozenset(part.classes)) for part in select.children]


async def test_a_choice_is_mounted_in_its_final_style_and_looks_as_a_select():
    plain = Lists(Select)
    async with plain.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        textual_parts = parts(plain)
    assert plain.restyled, "Textual's own Select restyles its parts once mounted"
    choice = Lists(Choice)
    async with choice.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        assert parts(choice) == textual_parts
    assert choice.restyled == []


async def test_a_choice_opens_and_picks_as_a_select():
    app = Lists(Choice)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        select = app.query_one("#list", Select)
        select.focus()
        await pilot.press("enter")  # open
        assert select.expanded
        await pilot.press("down", "enter")
        await pilot.pause()
        assert select.value == 3 and not select.expanded


@pytest.mark.parametrize(("blank", "compact"), [(True, False), (True, True), (False, False)])
async def test_a_choice_looks_as_a_select_whatever_its_settings(blank: bool, compact: bool):
    """A list that may be blank starts with no value shown; one not compact has a list
    not compact: the parts are made so, as Textual's end."""
    looks = []
    for kind in (Select, Choice):
        app = Lists(kind, blank=blank, compact=compact)
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause()
            looks.append(parts(app))
    assert looks[0] == looks[1]


async def left_while_mounting(app: Any, screen: Callable[[], Screen[Any]]) -> None:
    """Open a setup and take it off again at once, or a few turns of the loop later
    (a key, then Esc in the same packet, on a busy host), many times: the app goes on."""
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        under = app.screen
        for turns in range(12):
            for _ in range(3):
                app.push_screen(screen())
                for _ in range(turns % 6):
                    await asyncio.sleep(0)
                app.pop_screen()
                await pilot.pause()
            assert app.screen is under and app._exception is None, turns
    assert app.return_code in (None, 0)


async def test_a_setup_left_while_it_mounts_ends_nothing(tmp_path, monkeypatch):
    """Its handlers and its lists' found their parts gone (NoMatches) and ended the app:
    locally, and over SSH the session (a traceback in the host's log)."""
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    await left_while_mounting(app, lambda: SetupScreen("valdes"))


async def test_a_shared_tables_setup_left_while_it_mounts_ends_nothing():
    lobby = Lobby(pace=INSTANT)
    await left_while_mounting(hosted(lobby, ALICE), lambda: HostSetupScreen("valdes"))
    lobby.close_all()


async def ended_while_mounting(make_app: Callable[[], Any], screen: Callable[[], Screen[Any]]):
    """Open a setup and end the app at once, or a few turns of the loop later (a session
    closed right behind its `v`): the screen's handlers find its parts taken down while
    it is still on the stack, and do nothing."""
    for turns in range(10):
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.push_screen(screen())
            for _ in range(turns):
                await asyncio.sleep(0)
            app.exit()
        assert app._exception is None and app.return_code in (None, 0), turns


async def test_a_setup_mounting_as_the_app_ends_ends_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    await ended_while_mounting(
        lambda: CantinaApp(animation_speed=0, pace=0, save_preferences=False),
        lambda: SetupScreen("valdes"),
    )


async def test_a_shared_tables_setup_mounting_as_the_app_ends_ends_nothing():
    lobby = Lobby(pace=INSTANT)
    await ended_while_mounting(lambda: hosted(lobby, ALICE), lambda: HostSetupScreen("vigo"))
    lobby.close_all()


class StylesAsTextual(HostedApp):
    """A hosted app that restyles every node whose classes change, mounted or not, as
    Textual's own App does."""

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        App.update_styles(self, node, animate)


def noting_unmounted(apply: Callable[..., None], unmounted: list[str]) -> Callable[..., None]:
    def noted(node: DOMNode, *args: Any, **kwargs: Any) -> None:
        if not node.is_attached:
            unmounted.append(type(node).__name__)
        apply(node, *args, **kwargs)

    return noted


async def test_a_hosted_setup_is_styled_once_mounted_and_looks_the_same():
    """A hosted app styles a node only once it is in the app (Textual styles each as it
    mounts it): the setup screen's Inputs and lists, their classes set as they are made,
    were styled as they were composed, and again as they mounted; it looks the same."""
    pictures = []
    for kind in (HostedApp, StylesAsTextual):
        lobby = Lobby(pace=INSTANT)
        app = kind(NoTerminal(), colours="truecolor", lobby=lobby, player=ALICE)
        app.animation_speed = 0
        unmounted: list[str] = []
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.stylesheet.apply = noting_unmounted(app.stylesheet.apply, unmounted)  # type: ignore[method-assign]
            await pilot.press("v")
            for _ in range(50):
                await pilot.pause()
                if isinstance(app.screen, HostSetupScreen) and app.screen.ready:
                    break
            await pilot.pause()
            pictures.append(app.export_screenshot())
        lobby.close_all()
        if kind is HostedApp:
            assert unmounted == []
        else:
            assert "Input" in unmounted  # what the hosted app spares
    assert "Stand-in" in pictures[0] and pictures[0] == pictures[1]
