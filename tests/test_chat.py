"""Chat in the lobby and at shared tables: the rooms (cleaned lines, a pace per person,
bounded history, mutes of one's own), the panel in a session's screens (typing never
acts at the table; hot-seat has none), and real SSH clients reading each other's lines."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from functools import partial

import asyncssh
import pytest
import test_ssh
import waiting
from ssh_clients import OpenSSH, connect
from test_no_color import is_grey, picture
from test_ssh import Keys, set_a_shared_table, start_host
from test_ssh_tables import guest
from textual import events
from textual.widgets import OptionList

import cantina.chat
from cantina.app import CantinaApp
from cantina.chat import (
    BURST,
    KEEP,
    MAX_LINE,
    ChatLine,
    ChatRates,
    ChatRoom,
    ChatSeat,
    MuteBook,
    Muted,
    rejoin_key,
)
from cantina.dealer import ASKING, Pace
from cantina.games.valdes import ValDesSettings
from cantina.lobby import Lobby, Player, SharedTable
from cantina.lobby.rooms import ChatRooms
from cantina.seating import Seat, TableSetup
from cantina.ssh.app import HostedApp
from cantina.ssh.server import Host
from cantina.store.memory import StoreAway
from screens import backroom
from screens.backroom import LobbyScreen, WaitingScreen
from screens.chat import (
    ONLY_MUTED,
    QUIET,
    ROWS,
    ChatHistoryScreen,
    ChatLines,
    ChatPanel,
    fitted_rows,
)
from screens.result import ResultScreen
from screens.table import TableScreen

until_drawn = partial(waiting.until_drawn, limit=400)  # its limit here, as before

ALICE = Player("SHA256:alicekey0001", "alice")
BOB = Player("SHA256:bobkey000002", "bob")
CAROL = Player("SHA256:carolkey0003", "carol")
HOSTILE = "hi \x1b]2;PWNED\x07\x1b[2J there"
"""A line that, drawn raw, would retitle the terminal and clear the screen."""
INSTANT = Pace(beat=0, roll=0)
SIZE = (80, 24)

keys = test_ssh.keys
own_config = test_ssh.own_config


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def no_controls(text: str) -> bool:
    return all(unicodedata.category(ch)[0] != "C" for ch in text)


# --- the rooms ------------------------------------------------------------------------------


def test_lines_and_names_are_cleaned_of_control_characters():
    room = ChatRoom()
    line = room.say(Player("SHA256:eve", "e\x1b[31mve\x07"), HOSTILE)
    assert line.text == "hi ]2;PWNED[2J there" and line.name == "e[31mve"
    assert no_controls(line.plain())
    assert room.say(BOB, "  many   spaces  ").text == "many spaces"
    assert len(room.say(BOB, "x" * 1000).text) == MAX_LINE
    for empty in ("", "   ", "\x1b\x07\x00"):
        with pytest.raises(ValueError, match="empty"):
            room.say(BOB, empty)
    assert len(room.lines) == 3, "an empty line is not kept (nor counted against the pace)"


def test_a_spectators_line_is_marked():
    room = ChatRoom()
    assert room.say(CAROL, "nice", watching=True).plain() == "carol (watching): nice"
    assert room.say(ALICE, "thanks").plain() == "alice: thanks"


def test_five_lines_in_ten_seconds_then_one_every_two():
    clock = Clock()
    room = ChatRoom(ChatRates(clock=clock))
    for n in range(BURST):
        room.say(ALICE, f"line {n}")
    with pytest.raises(
        ValueError, match=r"^Slow down: at most 5 lines every 10 seconds \(wait 2 s\)"
    ):
        room.say(ALICE, "one too many")
    room.say(BOB, "bob has his own pace")
    clock.now += 1.0
    with pytest.raises(ValueError, match="wait 1 s"):
        room.say(ALICE, "still too soon")
    clock.now += 1.0
    room.say(ALICE, "two seconds later: one more")
    with pytest.raises(ValueError, match="Slow down"):
        room.say(ALICE, "and not two")
    clock.now += 10.0
    for n in range(BURST):  # quiet for ten seconds: a full burst again, and no more
        room.say(ALICE, f"again {n}")
    with pytest.raises(ValueError, match="Slow down"):
        room.say(ALICE, "over")
    assert [line.text for line in room.lines].count("one too many") == 0


def test_the_pace_is_counted_across_the_hosts_rooms():
    """A person cannot talk faster by spreading lines over the lobby and tables."""
    lobby = Lobby()
    setup = TableSetup("valdes", ValDesSettings(seats=2, ante=1), (Seat("P"), Seat("P2")), 1)
    table = lobby.create(setup, ALICE)
    other = lobby.create(setup, BOB)
    assert table.chat is not other.chat and table.chat is not lobby.chat
    for room in (lobby.chat, table.chat, other.chat, lobby.chat, table.chat):
        room.say(CAROL, "hello")
    with pytest.raises(ValueError, match="Slow down"):
        other.chat.say(CAROL, "a sixth line, in a third room")


def test_quiet_speakers_are_forgotten(monkeypatch):
    monkeypatch.setattr(cantina.chat, "FORGET_AFTER", 10)
    clock = Clock()
    rates = ChatRates(clock=clock)
    for n in range(10):
        assert rates.take(f"id{n}")
    clock.now += 60  # everyone's bucket is full again
    assert rates.take("talker")
    assert len(rates) == 1


def test_a_room_keeps_its_last_lines_only():
    room = ChatRoom(ChatRates(burst=10_000))
    for n in range(KEEP + 50):
        room.say(ALICE, f"line {n}")
    assert len(room.lines) == KEEP
    assert room.lines[0].text == "line 50" and room.lines[-1].text == f"line {KEEP + 49}"


def test_listeners_hear_each_line_until_they_stop():
    room = ChatRoom()
    heard: list[ChatLine] = []
    stop = room.listen(heard.append)
    room.say(ALICE, "one")
    stop()
    stop()  # twice is harmless
    room.say(ALICE, "two")
    assert [line.text for line in heard] == ["one"] and room.listeners == 0


def test_a_mute_is_the_viewers_own():
    room = ChatRoom()
    alices, carols = ChatSeat(room, ALICE, Muted()), ChatSeat(room, CAROL, Muted())
    bobs = room.say(BOB, "buy my gold")
    own = alices.say("hello")
    assert alices.toggle_mute(bobs) is True
    assert [line.text for line in alices.visible()] == ["hello"]
    assert [line.text for line in carols.visible()] == ["buy my gold", "hello"]
    assert alices.muted.names == {BOB.identity: "bob"}
    room.say(Player(BOB.identity, "bob2"), "renamed")  # the same key under another name
    assert [line.text for line in alices.visible()] == ["hello"]
    with pytest.raises(ValueError, match="yourself"):
        alices.toggle_mute(own)
    assert alices.toggle_mute(bobs) is False
    assert [line.text for line in alices.visible()] == ["buy my gold", "hello", "renamed"]


def test_the_host_keeps_each_persons_mutes_bounded():
    """The book of mutes: the same object for the same key (every session of theirs); a
    guest back by rejoin code takes in what was kept under it; the least lately used go
    first; one viewer's mutes are bounded too."""
    book = MuteBook(keep=2)
    alices = book.of(ALICE.identity)
    alices.toggle(BOB.identity, "bob")
    assert book.of(ALICE.identity) is alices and BOB.identity in book.of(ALICE.identity)
    before, after = Muted(), Muted()
    before.toggle(CAROL.identity, "carol")
    book.put(rejoin_key("ABC123"), before)
    after.toggle(BOB.identity, "bob")  # muted on the new connection, before rejoining
    book.adopt(rejoin_key("ABC123"), after)
    assert set(after) == {CAROL.identity, BOB.identity}
    assert book.of(rejoin_key("ABC123")) is after  # kept there from now on
    book.of("SHA256:somebodyelse")  # a third: alice's, used least lately, goes
    assert len(book) == 2 and BOB.identity not in book.of(ALICE.identity)
    many = Muted()
    for n in range(cantina.chat.MUTED_MAX + 10):
        many.toggle(f"SHA256:{n}", f"p{n}")
    assert len(many.names) == cantina.chat.MUTED_MAX and "SHA256:0" not in many


# --- the panel, driven with Pilot -----------------------------------------------------------


class NoTerminal:
    """A HostedApp's terminal, unused: Pilot runs it headless."""

    size = SIZE

    def write(self, data: bytes) -> None: ...

    def attach(self, driver) -> None: ...

    def detach(self) -> None: ...


def hosted(lobby: Lobby, player: Player) -> HostedApp:
    app = HostedApp(NoTerminal(), colours="truecolor", lobby=lobby, player=player)
    app.animation_speed = 0
    return app


def panel_lines(app) -> list[str]:
    return app.screen.query_one(ChatPanel).lines


def alone_with_ais(lobby: Lobby) -> SharedTable:
    """A started Val-Des table where alice is the only person (two AIs)."""
    seats = (Seat("P1"), Seat("AI 1", "Expert"), Seat("AI 2", "Bold"))
    table = lobby.create(TableSetup("valdes", ValDesSettings(seats=3, ante=1), seats, 7), ALICE)
    lobby.start(table, ALICE)
    return table


async def test_typing_in_the_chat_never_acts_at_the_table():
    """Asked to choose, alice opens the chat (`/`) and types digits, space, o and l: they
    are her line, not a move, the odds or the log; Esc leaves the chat, not the table, and
    then `1` chooses."""
    lobby = Lobby(pace=INSTANT)
    table = alone_with_ais(lobby)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        # alice is seated at a started table: the lobby takes her straight to it
        await until_drawn(
            pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting_human
        )
        screen = app.screen
        moves = len(table.live.moves)
        await pilot.press("slash", *"1 2 o l/h", "enter")
        await until_drawn(pilot, lambda: panel_lines(app)[-1:] == ["alice: 1 2 o l/h"])
        assert len(table.live.moves) == moves and screen.awaiting_human
        assert not screen.odds_shown and app.screen is screen
        assert screen.query_one(ChatPanel).typing, "the chat keeps the keys until Esc"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and not screen.query_one(ChatPanel).typing
        await pilot.press("1")
        await until_drawn(pilot, lambda: len(table.live.moves) > moves)
    lobby.close_all()


async def test_keys_typed_right_behind_the_slash_are_the_lines():
    """`/1 2` and Enter arriving together (a fast typist, a slow link): the focus moves
    as `/` is read, so the digits are the line's and no move is made."""
    lobby = Lobby(pace=INSTANT)
    table = alone_with_ais(lobby)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(
            pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.awaiting_human
        )
        moves = len(table.live.moves)
        for key, character in [("slash", "/"), ("1", "1"), ("space", " "), ("2", "2")]:
            app.post_message(events.Key(key, character))  # all queued before any is read
        app.post_message(events.Key("enter", "\r"))
        await until_drawn(pilot, lambda: table.chat.lines)
        assert [line.text for line in table.chat.lines] == ["1 2"]
        assert len(table.live.moves) == moves and app.screen.awaiting_human
    lobby.close_all()


async def test_a_spectators_line_is_marked_on_the_players_screen():
    """Two sessions at one table, one playing and one watching, see the same chat; the
    spectator's line says so, and nobody sees a control character."""
    lobby = Lobby(pace=INSTANT)
    table = alone_with_ais(lobby)
    alice, carol = hosted(lobby, ALICE), hosted(lobby, CAROL)
    async with alice.run_test(size=SIZE) as at_table, carol.run_test(size=SIZE) as watching:
        await until_drawn(at_table, lambda: isinstance(alice.screen, TableScreen))  # her seat
        await until_drawn(watching, lambda: isinstance(carol.screen, LobbyScreen))
        carol.sit_at(table)
        await until_drawn(watching, lambda: isinstance(carol.screen, TableScreen))
        assert carol.screen.chat.watching and not alice.screen.chat.watching
        await watching.press("slash")
        await until_drawn(watching, lambda: carol.screen.query_one(ChatPanel).typing)
        await watching.press(*"go alice", "enter")
        await until_drawn(
            at_table, lambda: panel_lines(alice)[-1:] == ["carol (watching): go alice"]
        )
        table.chat.say(BOB, HOSTILE)
        await until_drawn(at_table, lambda: panel_lines(alice)[-1] == "bob: hi ]2;PWNED[2J there")
        await until_drawn(watching, lambda: panel_lines(carol)[-1] == "bob: hi ]2;PWNED[2J there")
        assert not lobby.chat.lines, "a table's chat is its own"
    assert table.chat.listeners == 0, "the screens stopped listening when they closed"
    lobby.close_all()


async def test_a_hot_seat_table_has_no_chat():
    app = CantinaApp(
        start=TableSetup(
            "valdes",
            ValDesSettings(seats=3, ante=1),
            (Seat("A"), Seat("B"), Seat("C", "Expert")),
            7,
        ),
        animation_speed=0,
        pace=0,
        save_preferences=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        assert screen.chat is None and not screen.query(ChatPanel)
        await pilot.press("slash", "h")
        await pilot.pause()
        assert app.screen is screen
        result = await to_the_result(pilot, app)  # nor on the game's result
        await pilot.press("slash", "h")
        await pilot.pause()
        assert app.screen is result


async def to_the_result(pilot, app) -> ResultScreen:
    """Take the first option whenever alice is asked, until the game's result is up."""
    for _ in range(2000):
        await pilot.pause()
        if isinstance(app.screen, ResultScreen):
            return app.screen
        if isinstance(app.screen, TableScreen) and app.screen.awaiting_human:
            await pilot.press("1")
    raise AssertionError("no result came")


async def test_a_line_typed_on_the_result_is_said_at_the_table_not_the_dialogs_keys():
    """Seen in a play-test: on a shared table's result, `/` did nothing while the chat
    under it said "press / to talk", and "said while redis down" opened the Analysis on
    its `a`. Now `/` takes the keys to the table's chat at once (the ones typed right
    behind it too): the line is said, no key of the dialog acts; Esc leaves the chat and
    the result is back; `h` there shows the whole chat."""
    lobby = Lobby(pace=INSTANT)
    table = alone_with_ais(lobby)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        result = await to_the_result(pilot, app)
        screen = app.screen_stack[-2]
        assert isinstance(screen, TableScreen)
        number = table.live.number
        typed = [("slash", "/")] + [
            ("space" if c == " " else c, c) for c in "said while redis down"
        ]
        for key, character in typed:  # all queued before any is read
            app.post_message(events.Key(key, character))
        app.post_message(events.Key("enter", "\r"))
        await until_drawn(pilot, lambda: table.chat.lines)
        assert [line.text for line in table.chat.lines] == ["said while redis down"]
        assert app.screen is screen and screen.query_one(ChatPanel).typing
        assert table.live.number == number, "no `n`, no next game"
        assert result not in app.screen_stack
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert not screen.query_one(ChatPanel).typing
        await pilot.press("h")
        await until_drawn(pilot, lambda: isinstance(app.screen, ChatHistoryScreen))
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, ResultScreen))
    lobby.close_all()


async def test_the_chat_line_is_not_the_join_code():
    """Enter in the chat says the line; the lobby does not read it as a table's code."""
    lobby = Lobby()
    setup = TableSetup("valdes", ValDesSettings(seats=2, ante=1), (Seat("P"), Seat("P2")), 1)
    table = lobby.create(setup, BOB)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("slash", *table.code, "enter")
        await until_drawn(pilot, lambda: [line.text for line in lobby.chat.lines] == [table.code])
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and table.seat_of(ALICE.identity) is None
        await pilot.press("enter")  # an empty line leaves the chat
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#tables")


async def test_the_whole_chat_and_a_mute_from_it():
    """`h` shows every line; `m` on bob's hides his lines from alice (in the panel too)
    and on it again shows them; her own line she cannot mute."""
    lobby = Lobby()
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby.chat.say(ALICE, "hello all")
        lobby.chat.say(BOB, "buy my gold")
        await until_drawn(
            pilot, lambda: panel_lines(app) == ["alice: hello all", "bob: buy my gold"]
        )
        await pilot.press("h")
        await until_drawn(pilot, lambda: isinstance(app.screen, ChatHistoryScreen))
        history = app.screen
        await pilot.press("m")  # the newest line is highlighted: bob's
        await until_drawn(pilot, lambda: BOB.identity in app.muted)
        assert [str(row.prompt) for row in history.query_one("#chat-history").options] == [
            "alice: hello all",
            "bob: (muted)",
        ]
        lobby.chat.say(BOB, "really cheap")
        lobby.chat.say(CAROL, "hi")
        await until_drawn(pilot, lambda: len(history.lines) == 4)
        await pilot.press("up", "up", "up", "m")  # alice's own line
        await pilot.pause()
        assert ALICE.identity not in app.muted
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert panel_lines(app) == ["alice: hello all", "carol: hi"]
        await pilot.press("h")
        await until_drawn(pilot, lambda: isinstance(app.screen, ChatHistoryScreen))
        await pilot.press("up", "up", "m", "escape")  # bob's first line: unmute
        await until_drawn(pilot, lambda: BOB.identity not in app.muted)
        await until_drawn(pilot, lambda: panel_lines(app)[0] == "bob: buy my gold")


async def test_a_long_line_at_the_table_shows_who_said_it():
    """Seen in a play-test: at 80 columns a table's chat is 32 columns wide, and a long
    line (a spectator's, of 100 characters) showed only its last three rows, "see how the
    chat wraps it at / eighty columns wide, more words / here": neither who said it nor
    that it was cut. Now the panel shows the line's start, its speaker first, and ends
    its last row with "…"; a short line after it shows whole, below."""
    lobby = Lobby(pace=INSTANT)
    table = alone_with_ais(lobby)
    long = "héllo 🎲 日本語 — this is a pretty long line to see how the chat wraps it here"
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        lines = app.screen.query_one(ChatLines)
        assert lines.size.width < 40  # beside the narration: a line of this wraps to 3+
        table.chat.say(CAROL, long, watching=True)
        await until_drawn(pilot, lambda: lines.rows and "héllo" in lines.rows[0])
        rows = lines.rows
        assert rows[0].startswith("carol (watching): ") and rows[-1].endswith("…")
        assert len(rows) == ROWS
        table.chat.say(BOB, "gl")
        await until_drawn(pilot, lambda: lines.rows[-1:] == ["bob: gl"])
        assert lines.rows[0].startswith("carol (watching): ") and lines.rows[-2].endswith("…")
    lobby.close_all()


async def test_a_panel_with_only_muted_lines_does_not_say_nobody_spoke():
    """Seen in a play-test: once alice muted the only one who had spoken, the table's
    panel said "Nobody has said anything yet.", which was not so. It says that only
    muted people have spoken, and how to read them."""
    lobby = Lobby()
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lines = app.screen.query_one(ChatLines)
        await until_drawn(pilot, lambda: lines.rows == [QUIET])
        lobby.chat.say(BOB, "buy my gold")
        await until_drawn(pilot, lambda: panel_lines(app) == ["bob: buy my gold"])
        await pilot.press("h")
        await until_drawn(pilot, lambda: isinstance(app.screen, ChatHistoryScreen))
        await pilot.press("m", "escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await until_drawn(pilot, lambda: lines.rows[:1] and lines.rows[0].startswith("Only people"))
        assert " ".join(lines.rows) == ONLY_MUTED


def test_fitted_rows_keep_each_shown_lines_start():
    assert fitted_rows(["ab: one two three four"], 8, 2) == ["ab: one", "two…"]
    assert fitted_rows(["a: x", "b: y"], 8, 1) == ["b: y"]
    assert fitted_rows(["a: 12345678"], 8, 1) == ["a:…"]
    assert fitted_rows(["a: 1234567890123"], 8, 1) == ["a:…"]
    assert fitted_rows(["aaaaaaaaaaaa"], 8, 1) == ["aaaaaaa…"]
    assert fitted_rows(["x"], 8, 0) == []


async def lobby_with_lines(pilot) -> None:
    lobby = pilot.app.lobby
    await until_drawn(pilot, lambda: isinstance(pilot.app.screen, LobbyScreen))
    lobby.chat.say(BOB, HOSTILE)
    lobby.chat.say(ALICE, "hello bob, want a game of Val-Des?")
    lobby.chat.say(BOB, "sure, set one and I'll join")
    await until_drawn(pilot, lambda: panel_lines(pilot.app)[0].startswith("bob: hi"))
    await until_drawn(
        pilot, lambda: "Here now (2)" in str(pilot.app.screen.query_one("#lobby-people").render())
    )


def lobby_of_two() -> Lobby:
    """A lobby where alice and bob are both connected."""
    lobby = Lobby()
    lobby.arrived(ALICE)
    lobby.arrived(BOB)
    return lobby


def test_snapshot_lobby_with_chat(snap_compare):
    app = hosted(lobby_of_two(), ALICE)
    assert snap_compare(app, terminal_size=SIZE, run_before=lobby_with_lines)


async def test_the_lobbys_chat_reads_without_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = hosted(lobby_of_two(), ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await lobby_with_lines(pilot)
        await pilot.pause()
        drawn = picture(app)
    screen = "\n".join("".join(row) for row in drawn.text)
    assert "bob: hi ]2;PWNED[2J there" in screen
    assert "alice: hello bob, want a game of Val-Des?" in screen
    assert "/ to talk" in screen
    assert all(is_grey(colour) for colour in drawn.colours())


# --- real SSH clients -----------------------------------------------------------------------


def app_of(host: Host, name: str) -> HostedApp:
    (app,) = [s.app for s in host.sessions if s.gate.username == name and s.app is not None]
    return app


async def wait_for(check: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


def panel(host: Host, name: str) -> ChatPanel | None:
    """The chat panel on the screen `name`'s session shows, if any."""
    apps = [s.app for s in host.sessions if s.gate.username == name and s.app is not None]
    if len(apps) != 1 or not apps[0].screen.query(ChatPanel):
        return None
    return apps[0].screen.query_one(ChatPanel)


def typing(host: Host, name: str) -> bool:
    shown = panel(host, name)
    return shown is not None and shown.typing


async def say(host: Host, name: str, chan: asyncssh.SSHClientChannel, text: bytes) -> None:
    """`/` (unless the chat has the keys already), then the line and Enter."""
    if not typing(host, name):
        chan.write(b"/")
    await wait_for(lambda: typing(host, name), f"{name}'s chat to take the keys")
    chan.write(text + b"\r")


async def test_two_sessions_in_the_lobby_and_a_spectator_at_a_table(keys: Keys):
    """alice and bob, each on an asyncssh client, read each other's lines in the lobby; a
    pasted escape sequence reaches neither terminal; at alice's table, bob watching, his
    line is marked as a spectator's on alice's screen."""
    host = await start_host(keys)
    alice = await connect(host.port, asyncssh.read_private_key(keys.player), user="alice")
    bob = await connect(host.port, asyncssh.read_private_key(keys.partner), user="bob")
    try:
        for _, _, screen in (alice, bob):
            await screen.expect("shared tables")
        await wait_for(lambda: panel(host, "alice"), "alice's lobby")
        await wait_for(lambda: panel(host, "bob"), "bob's lobby")
        mark = bob[2].output.__len__()
        await say(host, "alice", alice[1], b"anyone for Val-Des?")
        await bob[2].expect("alice: anyone for Val-Des?", since=mark)
        mark = alice[2].output.__len__()
        await say(host, "bob", bob[1], b"me!")
        await alice[2].expect("bob: me!", since=mark)

        # alice sets a Val-Des table and starts it; bob watches it.
        alice[1].write(b"\x1b")  # leave the chat
        await wait_for(lambda: not typing(host, "alice"), "alice out of the chat")
        alice[1].write(b"d")
        await alice[2].expect("set the table")
        alice[1].write(b"\x13")
        await alice[2].expect("Press s to start")
        alice[1].write(b"s")
        await wait_for(lambda: isinstance(app_of(host, "alice").screen, TableScreen), "the table")
        await bob[2].expect("playing")
        bob[1].write(b"\x1b")  # leave the chat
        await wait_for(lambda: not typing(host, "bob"), "bob out of the chat")
        bob[1].write(b"w")
        await wait_for(lambda: isinstance(app_of(host, "bob").screen, TableScreen), "bob watching")
        assert app_of(host, "bob").screen.chat.watching
        (table,) = host.lobby.tables.values()

        # Asked to call, alice types `/` and a line with digits in one go: all of it is
        # her line (the focus moves at `/`, before the keys behind it), none of it a move.
        def asking_alice() -> bool:
            turn = table.dealer.turn
            return (
                turn.kind == ASKING and turn.seat == 0 and table.dealer.shown == len(table.live.log)
            )

        await wait_for(asking_alice, "alice to be asked")
        moves = len(table.live.moves)
        alice[1].write(b"/1 2 3\r")
        await wait_for(lambda: table.chat.lines, "alice's line")
        assert [line.plain() for line in table.chat.lines] == ["alice: 1 2 3"]
        assert len(table.live.moves) == moves and asking_alice()
        alice[1].write(b"\x1b")
        await wait_for(lambda: not typing(host, "alice"), "alice out of the chat")
        mark = alice[2].output.__len__()
        await say(host, "bob", bob[1], b"good luck")
        await alice[2].expect("bob (watching): good luck", since=mark)
        assert [line.plain() for line in table.chat.lines][-1] == "bob (watching): good luck"

        marks = [alice[2].output.__len__(), bob[2].output.__len__()]
        await say(host, "alice", alice[1], b"\x1b[200~" + HOSTILE.encode() + b"\x1b[201~")
        # Last: Textual's key parser ends a paste at its first ESC and passes the rest on as
        # keys (ESC itself as "^[", BEL as ctrl+g, which types nothing): the words arrive,
        # the sequences do not. (It then waits for the paste's end before taking any
        # other key: the paster's own session only, but nothing to test after it.)
        await wait_for(lambda: len(table.chat.lines) == 3, "alice's pasted line")
        said = table.chat.lines[-1]
        assert "2;PWNED" in said.text and no_controls(said.text), said
        await bob[2].expect("2;PWNED", since=marks[1])
        await alice[2].expect("2;PWNED", since=marks[0])
        for (_, _, screen), since in zip((alice, bob), marks, strict=True):
            assert b"PWNED\x07" not in screen.output[since:]
            assert b"\x1b]2;" not in screen.output[since:]
    finally:
        alice[0].close()
        bob[0].close()
        await asyncio.wait_for(host.close(), 10)


async def test_the_waiting_room_talks_in_the_tables_chat():
    """Before the start, the waiting room shows the table's chat; the lines said there
    are still on show at the table once it starts."""
    lobby = Lobby(pace=INSTANT)
    setup = TableSetup(
        "valdes", ValDesSettings(seats=3, ante=1), (Seat("P"), Seat("P2"), Seat("AI", "Expert")), 1
    )
    table = lobby.create(setup, ALICE)
    lobby.join(table, BOB)
    alice, bob = hosted(lobby, ALICE), hosted(lobby, BOB)
    async with alice.run_test(size=SIZE) as creator, bob.run_test(size=SIZE) as joiner:
        for pilot in (creator, joiner):
            await until_drawn(pilot, lambda p=pilot: isinstance(p.app.screen, LobbyScreen))
            pilot.app.push_screen(WaitingScreen(table))
            await until_drawn(pilot, lambda p=pilot: isinstance(p.app.screen, WaitingScreen))
        await joiner.press("slash")
        await until_drawn(joiner, lambda: bob.screen.query_one(ChatPanel).typing)
        await joiner.press(*"ready when you are", "enter")
        await until_drawn(creator, lambda: panel_lines(alice) == ["bob: ready when you are"])
        assert not lobby.chat.lines
        await creator.press("s")
        await until_drawn(creator, lambda: isinstance(alice.screen, TableScreen))
        await until_drawn(creator, lambda: panel_lines(alice) == ["bob: ready when you are"])
    lobby.close_all()


async def test_leaving_a_waiting_table_as_its_screen_looks_again_ends_no_session():
    """Seen in a play-test over SSH: the creator pressed Esc in a table's waiting room and
    the session ended with a traceback (ScreenStackError): the screen's look at the table,
    due twice a second, came after Esc had popped it and before it was taken down, found
    the table closed (its creator had left) and popped again, the back room this time."""
    lobby = Lobby()
    setup = TableSetup("valdes", ValDesSettings(seats=2, ante=1), (Seat("P"), Seat("P2")), 1)
    table = lobby.create(setup, ALICE)
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        waiting = WaitingScreen(table)
        app.push_screen(waiting)
        await until_drawn(pilot, lambda: app.screen is waiting)
        await pilot.press("escape")
        assert lobby.find(table.code) is None
        waiting.follow()  # the look that was due: nothing more to do
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.return_code is None
        assert not app._notifications, "no 'That table was closed.' for the one who left"


async def test_those_watching_a_waiting_table_hear_who_left_it_when_it_closes():
    """Seen in a play-test: bob watched a table not yet started, and its creator, alone at
    it, left: bob was told only "That table was closed." He now hears who left it."""
    lobby = Lobby()
    setup = TableSetup("valdes", ValDesSettings(seats=2, ante=1), (Seat("P"), Seat("P2")), 1)
    table = lobby.create(setup, ALICE)
    app = hosted(lobby, BOB)
    said: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.notify = lambda message, **_: said.append(str(message))  # type: ignore[method-assign]
        lobby.watch(table, BOB)
        app.push_screen(WaitingScreen(table, watching=True))
        await until_drawn(pilot, lambda: isinstance(app.screen, WaitingScreen))
        lobby.leave_unstarted(table, ALICE)
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen), limit=2000)
    assert said == ["That table was closed: alice left it before it started."]
    lobby.close_all()


async def test_a_table_starting_under_the_chat_history_is_shown_once_it_is_closed():
    """Seen reading the code after a play-test: bob, in the waiting room, reads the whole
    chat (`h`) as alice starts the table. The start popped the history, not the waiting
    room, which stayed under the table, dead: leaving the table led back to it. Now the
    history stays until bob closes it, then he is at the table; leaving it leads to the
    back room."""
    lobby = Lobby(pace=INSTANT)
    setup = TableSetup(
        "valdes", ValDesSettings(seats=3, ante=1), (Seat("P"), Seat("P2"), Seat("AI", "Expert")), 1
    )
    table = lobby.create(setup, ALICE)
    lobby.join(table, BOB)
    app = hosted(lobby, BOB)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.push_screen(WaitingScreen(table))
        await until_drawn(pilot, lambda: isinstance(app.screen, WaitingScreen))
        await pilot.press("h")
        await until_drawn(pilot, lambda: isinstance(app.screen, ChatHistoryScreen))
        lobby.start(table, ALICE)
        for _ in range(3):
            await asyncio.sleep(backroom.REFRESH)
            await pilot.pause()
        assert isinstance(app.screen, ChatHistoryScreen), "not taken from under him"
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        assert not any(isinstance(s, WaitingScreen) for s in app.screen_stack)
        app.screen.dismiss()
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
    lobby.close_all()


async def test_a_pasted_text_goes_into_the_line_whole():
    """Seen in a play-test: three lines pasted into the chat (a bracketed paste, from
    tmux) left only the first in the line, and a paste longer than the room left put in
    nothing at all. Now a paste's lines and tabs are spaces, and it is cut to the room."""
    lobby = Lobby()
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        panel = app.screen.query_one(ChatPanel)
        await pilot.press("slash", *"say:", "space")
        await until_drawn(pilot, lambda: panel.field.value == "say: ")
        app.post_message(events.Paste("line one\r\nline two\tTABBED\nthree\x1b[31m"))
        await until_drawn(pilot, lambda: panel.field.value != "say: ")
        assert panel.field.value == "say: line one line two TABBED three[31m"
        await pilot.press("enter")
        await until_drawn(pilot, lambda: lobby.chat.lines)
        assert lobby.chat.lines[-1].text == "say: line one line two TABBED three[31m"
        await pilot.press(*"ab")
        app.post_message(events.Paste("x" * (MAX_LINE + 50)))
        await until_drawn(pilot, lambda: len(panel.field.value) > 2)
        assert panel.field.value == "ab" + "x" * (MAX_LINE - 2)
        assert panel.field.cursor_position == MAX_LINE


async def test_too_fast_says_so_in_a_line_and_keeps_the_line():
    """A sixth line within ten seconds is refused with one plain line (a notice); what was
    typed stays in the chat line, to send again in a moment."""
    lobby = Lobby()
    lobby.chat.rates = ChatRates(clock=Clock())  # time stands still: however slow the test
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("slash")
        for n in range(BURST + 1):
            await pilot.press(*f"line {n}", "enter")
        await pilot.pause()
        assert [line.text for line in lobby.chat.lines] == [f"line {n}" for n in range(BURST)]
        assert app.screen.query_one(ChatPanel).field.value == f"line {BURST}"
        assert [n.message for n in app._notifications] == [
            "Slow down: at most 5 lines every 10 seconds (wait 2 s)."
        ]


async def mute_the_newest_line(
    host: Host, name: str, send: Callable[[bytes], object], identity: str
) -> None:
    """From the lobby: `h` (the whole chat), `m` on the newest line, Esc."""
    send(b"h")
    await wait_for(
        lambda: isinstance(app_of(host, name).screen, ChatHistoryScreen), f"{name}'s history"
    )
    send(b"m")
    await wait_for(lambda: identity in app_of(host, name).muted, f"{name}'s mute")
    send(b"\x1b")
    await wait_for(lambda: isinstance(app_of(host, name).screen, LobbyScreen), f"{name}'s lobby")


async def test_a_keyed_players_mutes_survive_a_reconnect(keys: Keys):
    """alice mutes bob from the lobby's whole chat, leaves and connects again with her
    key: bob's lines, old and new, stay hidden from her (and his new ones reach others)."""
    host = await start_host(keys)
    alice = await connect(host.port, asyncssh.read_private_key(keys.player), user="alice")
    bob = await connect(host.port, asyncssh.read_private_key(keys.partner), user="bob")
    again = None
    try:
        for _, _, screen in (alice, bob):
            await screen.expect("shared tables")
        await wait_for(lambda: panel(host, "alice") and panel(host, "bob"), "both lobbies")
        await say(host, "bob", bob[1], b"buy my gold")
        await wait_for(lambda: "bob: buy my gold" in panel(host, "alice").lines, "bob's line")
        bobs = app_of(host, "bob").player.identity
        await mute_the_newest_line(host, "alice", alice[1].write, bobs)
        assert "bob: buy my gold" not in panel(host, "alice").lines

        alice[0].close()
        await wait_for(lambda: not any(s.gate.username == "alice" for s in host.sessions), "gone")
        again = await connect(host.port, asyncssh.read_private_key(keys.player), user="alice")
        await again[2].expect("shared tables")
        await wait_for(lambda: panel(host, "alice"), "alice's new lobby")
        assert bobs in app_of(host, "alice").muted
        await say(host, "bob", bob[1], b"really cheap gold")
        await wait_for(lambda: lobby_said(host, "really cheap gold"), "bob's new line")
        await asyncio.sleep(0.3)  # the panel has had time to show it, were it shown
        shown = panel(host, "alice").lines
        assert not any(line.startswith("bob:") for line in shown), shown
        mark = len(again[2].output)
        await say(host, "alice", again[1], b"hello again")
        await again[2].expect("alice: hello again", since=mark)
        assert "really cheap" not in again[2].output.decode("utf-8", "replace")
    finally:
        for link in (alice, bob, again):
            if link is not None:
                link[0].close()
        await asyncio.wait_for(host.close(), 10)


def lobby_said(host: Host, text: str) -> bool:
    return any(line.text == text for line in host.lobby.chat.lines)


async def test_a_guests_mutes_come_back_with_their_rejoin_code(keys: Keys):
    """bob, a guest on OpenSSH, mutes alice in the lobby, sits at her table, and his link
    drops. A new connection (a new guest to the host) that types his rejoin code is back
    in his seat with alice still muted; another new guest, with no code, mutes nobody."""
    host = await start_host(keys)
    host.options.guests = True
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await guest(keys, host.port, "bob")
    again: OpenSSH | None = None
    other: OpenSSH | None = None
    try:
        for client in (alice, bob):
            await client.expect("shared tables")
        await wait_for(lambda: panel(host, "alice") and panel(host, "bob"), "both lobbies")
        alices = app_of(host, "alice").player.identity
        await say(host, "alice", alice.process.stdin, b"anyone?")
        await wait_for(lambda: "alice: anyone?" in panel(host, "bob").lines, "alice's line")
        alice.send("\x1b")  # out of the chat
        await wait_for(lambda: not typing(host, "alice"), "alice out of the chat")
        await mute_the_newest_line(host, "bob", bob.send, alices)

        code = await set_a_shared_table(alice, bob)
        table = host.lobby.tables[code]
        await wait_for(lambda: table.live is not None, "the table to start")
        (seat,) = [seat for seat, p in table.seated.items() if p.name == "bob"]
        rejoin = table.rejoin[seat]
        bob.kill()  # bob's link drops
        await wait_for(lambda: not any(s.gate.username == "bob" for s in host.sessions), "gone")

        other = await guest(keys, host.port, "bob")  # a stranger by the same name
        await other.expect("shared tables")
        await wait_for(lambda: panel(host, "bob"), "the other guest's lobby")
        assert not list(app_of(host, "bob").muted)
        other.kill()
        await wait_for(lambda: not any(s.gate.username == "bob" for s in host.sessions), "gone")

        again = await guest(keys, host.port, "bob")
        await again.expect("shared tables")
        await wait_for(lambda: panel(host, "bob"), "bob's new lobby")
        new = app_of(host, "bob").player.identity
        assert alices not in app_of(host, "bob").muted
        again.send("j")
        await asyncio.sleep(0.5)  # the focus moves to the code field
        again.send(rejoin.lower() + "\r")
        await wait_for(lambda: table.seat_of(new) == seat, "bob back in his seat")
        assert alices in app_of(host, "bob").muted
        await wait_for(lambda: isinstance(app_of(host, "bob").screen, TableScreen), "the table")
        await say(host, "alice", alice.process.stdin, b"welcome back")
        await wait_for(lambda: table.chat.lines, "alice's line at the table")
        await asyncio.sleep(0.3)
        assert not any(line.startswith("alice:") for line in panel(host, "bob").lines)
    finally:
        for client in (alice, bob, again, other):
            if client is not None:
                client.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_the_lobby_under_a_table_keeps_its_list_up_only_once_back(monkeypatch):
    """While alice plays, her lobby (under the table) does not redo the tables' lines
    every half second (each session's did, a cost growing with sessions times tables);
    once she is back in the lobby, its list is current at once."""
    lobby = Lobby(pace=INSTANT)
    table = alone_with_ais(lobby)
    lines: list[str] = []
    real = backroom.table_line
    monkeypatch.setattr(backroom, "table_line", lambda t: lines.append(t.code) or real(t))
    app = hosted(lobby, ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await until_drawn(pilot, lambda: isinstance(app.screen, TableScreen))
        lines.clear()
        later = lobby.create(table.setup, CAROL)
        await asyncio.sleep(backroom.REFRESH * 3)
        assert lines == [], "the lobby under the table redid its list"
        app.pop_screen()
        await until_drawn(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert later.code in lines
        shown = app.screen.query_one("#tables", OptionList)
        assert later.code in {shown.get_option_at_index(i).id for i in range(shown.option_count)}
    lobby.close_all()


async def test_the_chat_sender_stops_when_asked_even_if_the_cancel_comes_out_as_redis_away():
    """A call to Redis cut short by a cancel can come out as a lost connection; the loop
    sending this host's lines to the others took that for Redis away and tried again
    every half second for ever after the host stopped it (every other loop of the
    lobby's looked for the cancel first)."""

    class CancelComesOutAsAway:
        async def say(self, room: str, said: object) -> None:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                raise StoreAway("lost connection") from None

    rooms = ChatRooms({}, None, "host-a")
    rooms.out.put_nowait(("", ChatLine("alice-id", "alice", "hello", False)))
    sender = asyncio.create_task(rooms.send(CancelComesOutAsAway()))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    sender.cancel()
    done, _ = await asyncio.wait([sender], timeout=2)
    assert sender in done and sender.cancelled()
