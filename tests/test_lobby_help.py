"""The back room's help (`?` in the lobby) is whole on an 80 x 24 screen; the menu the
back room opens leads back to it."""

from __future__ import annotations

from functools import partial

import pytest
import waiting
from test_chat import ALICE, BOB, INSTANT, NoTerminal, hosted
from test_no_color import picture
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, OptionList, Select, Static

from cantina.app import CantinaApp
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimSettings
from cantina.lobby import Lobby, Player
from cantina.lobby.table import OWNERS_ALONE
from cantina.seating import Seat, TableSetup
from cantina.ssh.app import HostedApp
from screens.backroom import NO_CAMPAIGN, CampaignTableScreen, LobbyScreen, WaitingScreen
from screens.campaigns import ChooseGameScreen
from screens.footer import KeptKey
from screens.lobby_help import LOBBY_HELP, LobbyHelpScreen
from screens.menu import MenuScreen
from screens.rules import RulesScreen
from screens.setup import HUMAN, SetupScreen

until_drawn = partial(waiting.until_drawn, limit=400)  # its limit here, as before


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    """Each test gets its own preferences folder."""
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


async def test_the_lobby_help_fits_80_by_24_without_scrolling():
    """Every paragraph, the last (rejoin codes, closing tables) included, is on screen at
    once at 80 x 24: a player reads it all without finding out that it scrolls."""
    app = CantinaApp(animation_speed=0, pace=0, save_preferences=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(LobbyHelpScreen())
        await pilot.pause()
        await pilot.pause()
        scroll = app.screen.query_one(VerticalScroll)
        assert scroll.max_scroll_y == 0, f"{scroll.virtual_size.height} rows in {scroll.size}"
        text = str(app.screen.query_one("#lobby-help-text", Static).render())
        assert "rejoin code" in text and LOBBY_HELP[-1] in text


async def test_playing_alone_from_the_back_room_names_the_first_seat_after_the_player():
    """Seen in a play-test over SSH: alice, playing alone from the back room's menu, sat
    as "Player 1" (the hot-seat name of the local app) at a table where the narration and
    the board speak of her by that name. Her first seat is hers by name; a second person's
    seat is still "Player 2", and a seat turned back into a person's is hers again."""
    app = HostedApp(NoTerminal(), colours="truecolor", lobby=Lobby(), player=ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("m")
        await until_drawn(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("v")
        await until_drawn(pilot, lambda: isinstance(app.screen, SetupScreen))
        setup = app.screen
        await until_drawn(pilot, lambda: setup.query("#name-0"))
        assert setup.query_one("#name-0", Input).value == "alice"
        assert setup.table().seats[0].name == "alice"
        setup.query_one("#kind-0", Select).value = "Bold"
        await until_drawn(pilot, lambda: setup.query_one("#name-0", Input).value.startswith("Bold"))
        setup.query_one("#kind-0", Select).value = HUMAN
        await until_drawn(pilot, lambda: setup.query_one("#name-0", Input).value == "alice")


async def test_the_local_apps_first_seat_is_player_1():
    """At home the keyboard may be shared (hot seat): the first seat is "Player 1"."""
    app = CantinaApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v")
        await until_drawn(pilot, lambda: isinstance(app.screen, SetupScreen))
        await until_drawn(pilot, lambda: app.screen.query("#name-0"))
        assert app.screen.query_one("#name-0", Input).value == "Player 1"


async def test_the_menu_opened_from_the_back_room_leads_back_to_it(tmp_path):
    """Seen in a play-test over SSH: `m` (play alone) opened the menu, where Esc did
    nothing and `q` and the Quit button ended the session, so a player could only get back
    to the shared tables by connecting again. There, Esc, `q` and the last button ("Back
    to the back room") go back; the footer says so (at 80 columns, with a keyed
    player's campaign keys); the app goes on."""
    app = HostedApp(
        NoTerminal(), colours="truecolor", lobby=Lobby(), player=ALICE, save_dir=tmp_path
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        for leave in ("escape", "q", "button"):
            await pilot.press("m")
            await until_drawn(pilot, lambda: isinstance(app.screen, MenuScreen))
            menu = app.screen
            quit_button = menu.query_one("#quit", Button)
            assert str(quit_button.label) == "Back to the back room  [q]"
            keys = {b.binding.key: b.binding.description for b in menu.active_bindings.values()}
            assert keys["q"] == "Back" and keys["escape"] == "Back"
            # its key whole at 80 columns, not under the palette's
            await until_drawn(pilot, lambda m=menu: [k for k in m.query(KeptKey) if k.key == "q"])
            shown = [key for key in menu.query(KeptKey) if key.key == "q"]
            palette = [k for k in menu.query(KeptKey) if k.has_class("-command-palette")]
            assert shown[0].region.right <= (palette[0].region.x if palette else 80)
            if leave == "button":
                await pilot.click("#quit")
            else:
                await pilot.press(leave)
            await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
            assert app.return_code is None, "the session goes on"


async def test_the_waiting_room_shows_the_games_rules_on_question_mark():
    """Seen in a play-test: `?` (and F1), which show the rules at the table and the help in
    the back room, did nothing in a table's waiting room, where players wait with time to
    read. They show the table's game's rules; the footer names them."""
    lobby = Lobby()
    seats = (Seat("P1"), Seat("P2"), Seat("AI", "Expert"))
    table = lobby.create(TableSetup("victim", VictimSettings(), seats, 1), ALICE)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.push_screen(WaitingScreen(table))
        await until_drawn(pilot, lambda: isinstance(app.screen, WaitingScreen))
        keys = {b.binding.key: b.binding.description for b in app.screen.active_bindings.values()}
        assert keys["f1"] == "Rules"
        for key in ("question_mark", "f1"):
            await pilot.press(key)
            await until_drawn(pilot, lambda: isinstance(app.screen, RulesScreen))
            assert app.screen.game_id == "victim"
            await pilot.press("escape")
            await until_drawn(pilot, lambda: isinstance(app.screen, WaitingScreen))
    lobby.close_all()


async def test_no_campaign_to_set_says_how_to_start_one(tmp_path):
    """Seen in a play-test: `c` with no campaign said only that there was none. It says
    how to start one, whole at 80 columns, and that way leads to the new campaign."""
    app = HostedApp(
        NoTerminal(), colours="truecolor", lobby=Lobby(), player=ALICE, save_dir=tmp_path
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("c")
        await until_drawn(pilot, lambda: isinstance(app.screen, CampaignTableScreen))
        choices = app.screen.query_one(OptionList)
        assert str(choices.get_option_at_index(0).prompt) == NO_CAMPAIGN
        rows = choices.render_lines(choices.region.reset_offset)
        assert "campaign) starts one." in "".join(row.text for row in rows)  # wrapped, not cut
        await pilot.press("escape", "m", "c")
        await until_drawn(pilot, lambda: isinstance(app.screen, ChooseGameScreen))


async def test_esc_gives_the_keys_back_from_the_join_code_field():
    """Seen in a play-test over SSH: after `j` and a wrong code, the back room's keys (`i`
    for a new Victim! table) went on being typed into the code field, and Esc, which
    gives the keys back from the chat's line, did nothing. Now Esc leaves the field (what
    was typed stays), and the back room's keys act again."""
    app = hosted(Lobby(), ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby_screen = app.screen
        code = lobby_screen.query_one("#code", Input)
        await pilot.press("j", "z", "z")
        await until_drawn(pilot, lambda: code.value == "zz")
        await pilot.press("escape")
        await until_drawn(pilot, lambda: lobby_screen.focused is lobby_screen.query_one("#tables"))
        await pilot.press("question_mark")
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyHelpScreen))
        assert code.value == "zz"


def watch_key(app) -> KeptKey:
    (key,) = [key for key in app.screen.query(KeptKey) if key.key == "w"]
    return key


async def test_watch_is_dimmed_while_there_is_no_table_to_watch():
    """`w Watch` showed, lit, in a back room with no table, and did nothing: it is dimmed
    (and does nothing) until a table opens, then lit, and watches it."""
    lobby = Lobby(pace=INSTANT)
    app = hosted(lobby, ALICE)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await until_drawn(pilot, lambda: watch_key(app).has_class("-disabled"))
            await pilot.press("w")
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen)
            seats = (Seat("Player 1"), Seat("Player 2"))
            table = lobby.create(TableSetup("valdes", ValDesSettings(seats=2), seats, 7), BOB)
            await until_drawn(pilot, lambda: not watch_key(app).has_class("-disabled"))
            await pilot.press("w")
            await until_drawn(pilot, lambda: isinstance(app.screen, WaitingScreen))
            assert app.screen.watching and app.screen.table is table
    finally:
        lobby.close_all()


async def test_a_long_table_summary_wraps_in_its_column_at_80_columns():
    """A table's summary longer than its column ("1/1 seated, 2 watching, its owner's
    alone, playing") ran on past it and pushed its creator's name off the edge at 80
    columns: it goes on, in its column, on the next line; the creator stays whole."""
    lobby = Lobby(pace=INSTANT)
    creator = Player("SHA256:maxkey000009", "Maximilian-Crane")
    seats = (Seat("Player 1"), Seat("Player 2"))
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=2), seats, 7), creator)
    dealer = lobby.start(table, creator)
    for n in range(2):
        dealer.follow(lambda: None, table.place_of(Player(f"SHA256:w{n}", f"watcher{n}")))
    table.owners_alone = OWNERS_ALONE  # a campaign's table whose round was under way
    summary = table.summary()
    assert summary == "1/1 seated, 2 watching, its owner's alone, playing"
    app = hosted(lobby, ALICE)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await until_drawn(pilot, lambda: app.screen.picked() is table)
            rows = ["".join(row).rstrip() for row in picture(app).text]
            (at,) = [i for i, row in enumerate(rows) if f"{table.code}  Val-Des" in row]
            assert "1/1 seated, 2 watching" in rows[at]
            assert "by Maximilian-Crane" in rows[at], rows[at]  # whole, inside the list
            assert "its owner's alone, playing " in rows[at + 1], rows[at + 1]
            column = rows[at].index("1/1 seated")
            assert rows[at + 1].index("its owner") == column, "in the summary's column"
    finally:
        lobby.close_all()
