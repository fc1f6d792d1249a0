"""Shared tables over SSH with real clients: who may start the next game, and that a
screen arriving late (a spectator, a player back after a drop) tells the same story and
draws the same board as one that was there from the start. The host runs in this test's
event loop on 127.0.0.1; what a screen shows is read from the host's sessions."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import test_ssh
from ssh_clients import OpenSSH, plain
from test_ssh import Keys, keyless, needs_openssh, set_a_shared_table, start_host
from textual.widgets import Input, Static
from waiting import until

from cantina.dealer import ASKING, OVER
from cantina.games.valdes import ValDesSettings
from cantina.lobby import SharedTable
from cantina.seating import Seat, TableSetup
from cantina.ssh.server import Host
from screens.dice import Die
from screens.result import ResultScreen
from screens.table import TableScreen
from screens.table_widgets import DecisionBar, Line

pytestmark = needs_openssh

keys = test_ssh.keys
"""The client and host keys, as in test_ssh (its fixture)."""
own_config = test_ssh.own_config
"""Each test's own config folder (autouse, as in test_ssh)."""

ALL_DIGITS = "123456789"


# --- looking at the host ----------------------------------------------------------------------


def session_of(host: Host, name: str):
    """The running session of the client that logged in as `name`."""
    (session,) = [s for s in host.sessions if s.gate.username == name and s.app is not None]
    return session


def table_screen(host: Host, name: str) -> TableScreen | None:
    """The shared table screen `name`'s session follows (under a dialog, maybe)."""
    sessions = [s for s in host.sessions if s.gate.username == name and s.app is not None]
    if len(sessions) != 1:
        return None
    screen = sessions[0].app.shared_screen
    return screen if screen is not None and not screen.gone else None


def stack(host: Host, name: str) -> list[str]:
    return [type(screen).__name__ for screen in session_of(host, name).app.screen_stack]


def caught_up(screen: TableScreen | None, table: SharedTable) -> bool:
    """The screen shows the table's current game as far as the dealer has shown it, its
    dice at rest (a die tumbling shows random faces)."""
    dealer = table.dealer
    return (
        screen is not None
        and screen.is_attached
        and screen.number == table.live.number
        and screen.narrated == dealer.shown
        and not any(die.rolling for die in screen.query(Die))
    )


def asking_a_person(table: SharedTable) -> bool:
    """Everything is shown and a person's seat is asked: the table waits for them."""
    dealer = table.dealer
    return (
        dealer.turn.kind == ASKING
        and dealer.turn.seat in table.seated
        and dealer.shown == len(table.live.log)
    )


def offered(screen: TableScreen | None) -> list[str]:
    """The options on show at a table screen (none while it is still being put up: its
    widgets are in its tree before they are composed)."""
    if screen is None or not screen.is_mounted:
        return []
    return screen.query_one(DecisionBar).offered()


async def answer(
    host: Host,
    table: SharedTable,
    clients: dict[str, OpenSSH],
    done: Callable[[], bool],
    limit: int = 80,
) -> None:
    """Whoever is asked answers with the first option (key 1), once it is on their
    screen, until `done()` or the game is over."""
    for _ in range(limit):
        await until(
            lambda: done() or asking_a_person(table) or table.live.game.pending is None,
            "a person to be asked, or the end",
        )
        if done() or table.live.game.pending is None:
            return
        name = table.seated[table.dealer.turn.seat].name
        await until(lambda n=name: offered(table_screen(host, n)), f"{name}'s options on show")
        moves = len(table.live.moves)
        clients[name].send("1")
        await until(lambda m=moves: len(table.live.moves) > m, f"{name}'s move to be made")
    raise AssertionError(f"still playing after {limit} answers")


def board(screen: TableScreen) -> list[tuple[str, str]]:
    """The board as drawn: each leaf widget under `#board` with its rendered text."""
    return [
        (f"{type(widget).__name__}#{widget.id}", str(widget.render()))
        for widget in screen.query("#board *")
        if not widget.children
    ]


def status_line(screen: TableScreen) -> str:
    return str(screen.query_one("#status-bar", Line).text)


def assert_same_story(late: TableScreen, player: TableScreen) -> None:
    """The late screen's narration, board and status line are the player's, line for line."""
    assert late.log_widget.lines == player.log_widget.lines
    assert board(late) == board(player)
    assert status_line(late) == status_line(player)


# --- who starts the next game -----------------------------------------------------------------


async def wait_for_results(host: Host, table: SharedTable, names: list[str]) -> None:
    """The game is over and each viewer's result dialog is on show, its buttons laid out
    (every dialog offers leaving)."""

    def dialog_shown(name: str) -> bool:
        screen = session_of(host, name).app.screen
        return isinstance(screen, ResultScreen) and bool(screen.query("#back"))

    await until(lambda: table.live.game.pending is None, "the game to end")
    await until(lambda: all(dialog_shown(n) for n in names), "every viewer's result dialog")


async def following_the_new_game(host: Host, table: SharedTable, names: list[str]) -> None:
    """Each has exactly one table screen, following the table's current game."""

    def following(name: str) -> bool:
        screen = session_of(host, name).app.screen
        return (
            stack(host, name) == ["LobbyScreen", "VigoScreen"]
            and isinstance(screen, TableScreen)
            and screen.number == table.live.number
            and screen.game is table.live.game
        )

    await until(lambda: all(following(n) for n in names), "every screen on the new game")


async def test_players_start_the_next_game_once_and_a_spectator_never(keys: Keys):
    """Two players and a spectator at a Vigo's Favor table. The spectator's number keys
    make no move and their result dialog has no "play on": `n` there starts nothing. A
    player's `n` starts exactly one next game, even with the other's `n` right behind; a
    player who did not press closes their dialog by themselves; everyone, the spectator
    too, ends with one table screen following the new game."""
    host = await start_host(keys)
    host.options.open = True  # carol's key is not listed
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    carol = await OpenSSH.start(keys.stranger, host.port, "-tt", user="carol")
    players = {"alice": alice, "bob": bob}
    everyone = ["alice", "bob", "carol"]
    try:
        code = await set_a_shared_table(alice, bob, key="v", title="Vigo's Favor")
        await carol.expect(code)
        await carol.expect("playing")
        watching = carol.mark()
        carol.send("w")
        await carol.expect("Watching table", since=watching)
        table = host.lobby.tables[code]

        # A spectator's number keys while a player is asked: no move, nothing offered.
        await until(lambda: asking_a_person(table), "a player to be asked")
        await until(lambda: caught_up(table_screen(host, "carol"), table), "carol's screen")
        spectator = table_screen(host, "carol")
        assert spectator is not None and spectator.place.seats == frozenset()
        asked, moves = table.dealer.turn, len(table.live.moves)
        carol.send(ALL_DIGITS)
        await asyncio.sleep(0.5)
        assert len(table.live.moves) == moves and table.dealer.turn == asked
        assert offered(spectator) == []

        await answer(host, table, players, lambda: False)
        await wait_for_results(host, table, everyone)
        first = table.live.number
        dialogs = {name: session_of(host, name).app.screen for name in everyone}
        offered_again = {name: shown.query_one("#again").display for name, shown in dialogs.items()}
        assert offered_again == {"alice": True, "bob": True, "carol": False}, "a spectator's: none"
        await alice.expect("Next round")
        assert "Next round" not in plain(bytes(carol.output[watching:]))

        # The spectator's `n` starts nothing: every dialog stays open.
        carol.send("n")
        await asyncio.sleep(0.5)
        assert table.live.number == first
        assert all(session_of(host, n).app.screen is dialogs[n] for n in everyone)

        # alice plays on and bob presses `n` right behind her: one new game.
        alice.send("n")
        bob.send("n")
        await following_the_new_game(host, table, everyone)
        await asyncio.sleep(0.5)  # a second game would have begun by now
        assert table.live.number == first + 1
        await following_the_new_game(host, table, everyone)
        places = {n: session_of(host, n).app.screen.place.seats for n in everyone}
        assert places == {"alice": {0}, "bob": {1}, "carol": frozenset()}

        # The next round to its end; bob alone plays on: alice's dialog closes by itself,
        # and her `n` after that starts nothing more.
        await answer(host, table, players, lambda: False)
        await wait_for_results(host, table, everyone)
        bob.send("n")
        await following_the_new_game(host, table, everyone)
        assert table.live.number == first + 2
        alice.send("n")
        await asyncio.sleep(0.5)
        assert table.live.number == first + 2
        await following_the_new_game(host, table, everyone)
    finally:
        for client in (alice, bob, carol):
            client.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_shared_tables_dice_seed_is_told_to_no_one(keys: Keys):
    """The seed deals every roll to come, this game's and the next ones', and the AI's
    choices: a player who had it could play ahead at home and know them. At a Victim!
    table played to its end neither player's screen, result included, nor a spectator's
    says it; each story opens with a word on why."""
    host = await start_host(keys)
    host.options.open = True
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    carol = await OpenSSH.start(keys.stranger, host.port, "-tt", user="carol")
    everyone = {"alice": alice, "bob": bob, "carol": carol}
    try:
        code = await set_a_shared_table(alice, bob, key="i", title="Victim!")
        table = host.lobby.tables[code]
        await until(lambda: table.live is not None, "the table to start")
        await carol.expect(code)
        watching = carol.mark()
        carol.send("w")
        await carol.expect("Watching table", since=watching)
        await answer(host, table, {"alice": alice, "bob": bob}, lambda: False)
        await wait_for_results(host, table, list(everyone))
        seed = str(table.live.setup.seed)
        # 63 bits (a false alarm once in 2^31 runs): 2^32 seeds can all be tried, each
        # against the rolls seen, and the one left deals the rest
        assert table.live.setup.seed >= 2**32
        for name, client in everyone.items():
            told = plain(bytes(client.output))
            assert not re.search(rf"\b{seed}\b", told), f"{name} was told the seed"
            screen = table_screen(host, name)
            assert (
                screen is not None and "seed stays the table's secret" in screen.log_widget.lines[0]
            )
            result = session_of(host, name).app.screen
            assert isinstance(result, ResultScreen)
            assert not result.query_one("#result-seed", Static).display
    finally:
        for client in everyone.values():
            client.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_play_on_just_behind_another_is_not_refused(keys: Keys):
    """At the end of a round, alice's `n` is handled a moment before bob's (his dialog
    still open, the new game not yet looked at by his table screen): one next game, bob
    follows it like everyone, and nobody tells him the game cannot go on."""
    host = await start_host(keys)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        code = await set_a_shared_table(alice, bob, key="v", title="Vigo's Favor")
        table = host.lobby.tables[code]
        await until(lambda: table.live is not None, "the table to start")
        await answer(host, table, {"alice": alice, "bob": bob}, lambda: False)
        await wait_for_results(host, table, ["alice", "bob"])
        first = table.live.number
        dialog = session_of(host, "bob").app.screen
        hers = table_screen(host, "alice")
        assert hers is not None
        choose = dialog.action_choose

        def alice_first(choice: str) -> None:
            hers.play_on(first)  # what alice's `n` does, handled just before bob's
            choose(choice)

        dialog.action_choose = alice_first  # type: ignore[method-assign]
        mark = bob.mark()
        bob.send("n")  # bob's own key, through his client
        await following_the_new_game(host, table, ["alice", "bob"])
        await asyncio.sleep(1.0)  # a warning would be drawn by now
        assert table.live.number == first + 1
        assert "Cannot play on" not in plain(bytes(bob.output[mark:]))
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


# --- a late screen tells the same story ------------------------------------------------------


async def same_story_as_alice(host: Host, table: SharedTable) -> None:
    """Once both have caught up, carol (watching) draws what alice (playing) draws: the
    narration, the board and the status line, every die's face among them."""
    await until(
        lambda: all(caught_up(table_screen(host, n), table) for n in ("alice", "carol")),
        "carol's and alice's screens to catch up",
    )
    late, player = table_screen(host, "carol"), table_screen(host, "alice")
    assert late is not None and player is not None and late is not player
    assert late.place.seats == frozenset() and not late.place.player
    assert_same_story(late, player)
    faces = [(die.id, getattr(die, die.FACE_ATTRIBUTE)) for die in player.query(Die)]
    assert any(face is not None for _, face in faces), "the last battle's dice show"
    assert [(die.id, getattr(die, die.FACE_ATTRIBUTE)) for die in late.query(Die)] == faces
    for mine, theirs in zip(late.query(Die), player.query(Die), strict=True):
        if "?" not in str(theirs.render()):
            assert "?" not in str(mine.render()), f"{mine.id} shows no face"


async def test_a_late_spectator_sees_the_same_story(keys: Keys):
    """At a Victim! table (two people, one AI) a spectator who starts watching at turn 3
    or later draws, once caught up, the same narration, board (names, health, every die's
    face) and status line as a player who was there from the start; and goes on in step."""
    host = await start_host(keys)
    host.options.open = True
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    carol = await OpenSSH.start(keys.stranger, host.port, "-tt", user="carol")
    players = {"alice": alice, "bob": bob}
    try:
        code = await set_a_shared_table(alice, bob, key="i", title="Victim!")
        table = host.lobby.tables[code]
        await until(lambda: table.live is not None, "the table to start")
        await answer(
            host,
            table,
            players,
            lambda: table.live.game.state.turn >= 3 and asking_a_person(table),
        )
        assert table.live.game.pending is not None, "the match went on"
        await carol.expect(code)
        watching = carol.mark()
        carol.send("w")
        await carol.expect("Watching table", since=watching)
        await same_story_as_alice(host, table)  # as carol arrived
        moves = len(table.live.moves)
        await answer(host, table, players, lambda: len(table.live.moves) > moves)
        await until(
            lambda: asking_a_person(table) or table.dealer.turn.kind == OVER,
            "a player to be asked again (or, however unlikely, the match to end)",
        )
        await same_story_as_alice(host, table)  # and after a move watched live
    finally:
        for client in (alice, bob, carol):
            client.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_player_back_after_a_drop_sees_the_same_story(keys: Keys):
    """At a Val-Des table, bob's client is killed mid-game (two sets called); alice
    answers her own calls until the table waits for his. He connects again with the same
    key and is straight back at his seat, offered his call, with one table screen whose
    narration, slate, cube, pot and status line are alice's, line for line."""
    host = await start_host(keys)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    again: OpenSSH | None = None
    try:
        code = await set_a_shared_table(alice, bob)
        table = host.lobby.tables[code]
        await until(lambda: table.live is not None, "the table to start")
        players = {"alice": alice, "bob": bob}
        await answer(
            host,
            table,
            players,
            lambda: len(table.live.game.state.reveals) >= 2 and asking_a_person(table),
        )
        (bob_seat,) = [seat for seat, p in table.seated.items() if p.name == "bob"]
        bob.kill()  # bob's connection drops
        await until(lambda: bob_seat in table.dealer.away_since, "bob to be away")
        # alice plays on meanwhile; the table waits at bob's turn (the grace is long).
        await answer(
            host,
            table,
            {"alice": alice},
            lambda: asking_a_person(table) and table.dealer.turn.seat == bob_seat,
        )
        missed = len(table.live.moves)
        again = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
        await until(lambda: bob_seat not in table.dealer.away_since, "bob to be back")
        await until(
            lambda: all(caught_up(table_screen(host, n), table) for n in ("alice", "bob")),
            "bob's new screen to catch up",
        )
        back, player = table_screen(host, "bob"), table_screen(host, "alice")
        assert back is not None and player is not None
        assert back.place.seats == {bob_seat} and back.place.player
        assert stack(host, "bob") == ["LobbyScreen", "ValDesScreen"]
        assert len(table.live.moves) == missed
        await until(lambda: offered(table_screen(host, "bob")), "bob's call on his screen")
        assert_same_story(back, player)
        slate = str(back.query_one("#slate").render())
        assert slate == str(player.query_one("#slate").render())
        assert str(back.query_one("#pot").render()) == str(player.query_one("#pot").render())
    finally:
        alice.kill()
        bob.kill()
        if again is not None:
            again.kill()
        await asyncio.wait_for(host.close(), 10)


# --- a table people want to sit at: rejoin codes, watching early, limits, help ---------------


async def guest(keys: Keys, port: int, user: str) -> OpenSSH:
    """OpenSSH with no key at all: a new guest each time (the host must allow guests)."""
    process = await asyncio.create_subprocess_exec(
        "ssh",
        *keyless(keys, port),
        "-tt",
        f"{user}@127.0.0.1",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    return OpenSSH(process)


REJOIN_CODE = re.compile(r"your rejoin code ([A-Z0-9]{6})")


async def test_a_guest_back_from_a_drop_takes_their_seat_with_the_rejoin_code(keys: Keys):
    """bob, a guest with no key, sits at alice's Val-Des table and is shown his rejoin
    code at the table. His link drops; alice's screen counts down to the stand-in. He
    connects again (a new guest to the host), types the code in the lobby's code field,
    and is back in his own seat, following the table: the same story as alice's."""
    host = await start_host(keys)
    host.options.guests = True
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await guest(keys, host.port, "bob")
    again: OpenSSH | None = None
    try:
        code = await set_a_shared_table(alice, bob)
        table = host.lobby.tables[code]
        await until(lambda: table.live is not None, "the table to start")
        (bob_seat,) = [seat for seat, p in table.seated.items() if p.name == "bob"]
        first = table.seated[bob_seat].identity
        assert first.startswith("guest:")
        await bob.expect("your rejoin code")
        found = REJOIN_CODE.search(bob.text)
        assert found, bob.text[-500:]
        rejoin = found.group(1)
        assert rejoin == table.rejoin[bob_seat]
        assert "rejoin code" not in alice.text, "alice has a key: no code, and never bob's"

        mark = alice.mark()
        bob.kill()  # bob's connection drops
        await until(lambda: bob_seat in table.dealer.away_since, "bob to be away")
        await alice.expect("bob is away: the stand-in plays in", since=mark)

        again = await guest(keys, host.port, "bob")
        await again.expect("shared tables")
        await until(
            lambda: len([s for s in host.sessions if s.gate.username == "bob"]) == 1, "one bob"
        )
        second = session_of(host, "bob").gate.identity
        assert second.startswith("guest:") and second != first
        again.send("j")
        await asyncio.sleep(0.5)  # the focus moves to the code field
        again.send(rejoin.lower() + "\r")
        await until(lambda: table.seat_of(second) == bob_seat, "bob's new session in his seat")
        await until(lambda: bob_seat not in table.dealer.away_since, "bob to be back")
        await until(
            lambda: all(caught_up(table_screen(host, n), table) for n in ("alice", "bob")),
            "bob's new screen to catch up",
        )
        back, player = table_screen(host, "bob"), table_screen(host, "alice")
        assert back is not None and player is not None
        assert back.place.seats == {bob_seat} and back.place.player
        assert back.place.rejoin == rejoin, "the same code, for the next drop"
        assert stack(host, "bob") == ["LobbyScreen", "ValDesScreen"]
        assert table.seat_of(first) is None and table.seated[bob_seat].name == "bob"
        assert_same_story(back, player)
    finally:
        alice.kill()
        bob.kill()
        if again is not None:
            again.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_wrong_rejoin_code_says_so_and_tries_run_out(keys: Keys):
    """Each wrong code is refused in a line; after five, even a right one would be."""
    host = await start_host(keys)
    host.options.guests = True
    ana = await guest(keys, host.port, "ana")
    try:
        await ana.expect("shared tables")
        identity = session_of(host, "ana").gate.identity
        ana.send("j")
        await asyncio.sleep(0.5)
        mark = ana.mark()
        for tries in range(1, 6):
            ana.send(f"ZZZZZ{'ABCDE'[tries - 1]}\r")  # five different guesses
            await until(lambda t=tries: host.lobby.wrong_codes.get(identity) == t, f"try {tries}")
        await ana.expect("No seat has that rejoin code", since=mark)
        mark = ana.mark()
        ana.send("ZZZZZF\r")
        await ana.expect("Too many wrong rejoin codes", since=mark)
        assert host.lobby.wrong_codes[identity] == 5
    finally:
        ana.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_wrong_rejoin_code_empties_the_field_and_sent_again_counts_once(keys: Keys):
    """Seen in a play-test: after a wrong code the field kept it, full, so the letters a
    guest typed next were dropped and Enter sent the same wrong code again, each time one
    of their five tries. Now the field is emptied for the next code, Enter in it sends
    nothing, and the same wrong code entered again counts once."""
    host = await start_host(keys)
    host.options.guests = True
    ana = await guest(keys, host.port, "ana")
    try:
        await ana.expect("shared tables")
        identity = session_of(host, "ana").gate.identity
        ana.send("j")
        await asyncio.sleep(0.5)
        mark = ana.mark()
        ana.send("ZZZZZZ\r")
        await ana.expect("No seat has that rejoin code", since=mark)
        assert host.lobby.wrong_codes[identity] == 1
        code_field = session_of(host, "ana").app.screen.query_one("#code", Input)
        await until(lambda: code_field.value == "", "the field emptied")
        for keys_sent in ("\r", "zzzzzz\r", "ZZZZZY\r"):  # Enter in the empty field; the
            ana.send(keys_sent)  # same wrong code again; a new guess (keys taken in order)
            await asyncio.sleep(0.3)
        await until(lambda: host.lobby.wrong_codes[identity] > 1, "the new guess counted")
        await asyncio.sleep(0.5)
        assert host.lobby.wrong_codes[identity] == 2
        assert "No table has the code" not in ana.text
    finally:
        ana.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_spectator_watches_a_table_still_filling_up(keys: Keys):
    """carol watches alice's table before bob has sat down: she sees the waiting room
    (who sits, what is free), alice and the lobby see her watching, and when alice starts
    carol follows the table as a spectator."""
    host = await start_host(keys)
    host.options.open = True  # carol's key is not listed
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    carol = await OpenSSH.start(keys.stranger, host.port, "-tt", user="carol")
    try:
        await alice.expect("shared tables")
        await carol.expect("shared tables")
        alice.send("d")
        await alice.expect("Stand-in")
        alice.send("\x13")  # ctrl+s
        await alice.expect("Press s to start")
        (code,) = host.lobby.tables
        table = host.lobby.tables[code]
        await carol.expect(code)
        mark = carol.mark()
        carol.send("w")
        await carol.expect("You are watching (1 seat free)", since=mark)
        await carol.expect("(free seat)", since=mark)
        await alice.expect("Watching: carol")
        assert table.watching() == [session_of(host, "carol").gate.identity]
        await bob.expect("1/2 seated, 1 watching")
        await bob.expect(f"{code}: alice seated; carol watching")
        await bob.expect("Here now (3): alice, bob, carol")

        bob.send("\r")  # sits at the picked (only) table
        await carol.expect("bob", since=mark)
        alice.send("s")
        await until(lambda: table.live is not None, "the table to start")
        await until(lambda: table_screen(host, "carol") is not None, "carol's table screen")
        spectator = table_screen(host, "carol")
        assert spectator is not None and not spectator.place.player
        assert spectator.place.seats == frozenset()
        assert stack(host, "carol") == ["LobbyScreen", "ValDesScreen"]
        await until(lambda: table.watching() == [spectator.place.who], "carol still watching")
        await alice.expect("1 watching")
    finally:
        for client in (alice, bob, carol):
            client.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_help_is_a_key_away_and_a_third_table_is_refused(keys: Keys):
    """? in the lobby opens the back room's help; Esc closes it. alice has two tables
    playing already: her third is refused, in a line saying why."""
    host = await start_host(keys)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    try:
        await alice.expect("shared tables")
        mark = alice.mark()
        alice.send("?")
        await alice.expect("The back room: help", since=mark)
        await alice.expect("rejoin code", since=mark)
        alice.send("\x1b")  # at once: an ESC right after a key is a key too
        await until(lambda: stack(host, "alice") == ["LobbyScreen"], "the help to close")
        lobby = host.lobby
        player = session_of(host, "alice").app.player
        for _ in range(2):  # two tables of hers, started (as if she had set and left them)
            lobby.start(lobby.create(one_seat_table(), player), player)
        mark = alice.mark()
        alice.send("d")
        await alice.expect("Stand-in", since=mark)
        mark = alice.mark()
        alice.send("\x13")  # ctrl+s: set the table
        await alice.expect("You have 2 tables open", since=mark)
        assert len(lobby.tables) == 2
    finally:
        alice.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_table_left_by_everyone_closes_soon(keys: Keys):
    """Nobody at a started table, not even in the lobby: it closes after the host's
    (short, here) wait, and a waiting table closes as soon as its people are gone."""
    host = await start_host(keys)
    host.options.abandoned_after = 0.5
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        code = await set_a_shared_table(alice, bob)
        table = host.lobby.tables[code]
        await until(lambda: table.live is not None, "the table to start")
        waiting = host.lobby.create(one_seat_table(), session_of(host, "bob").app.player)
        alice.kill()
        bob.kill()
        await until(lambda: waiting.code not in host.lobby.tables, "the waiting table to close")
        assert code in host.lobby.tables, "not yet: the started table waits a moment"
        await until(lambda: not host.lobby.tables, "the started table to close", timeout=10)
        assert table.dealer.closed
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


def one_seat_table() -> TableSetup:
    """Val-Des with one seat for a person and an AI."""
    seats = (Seat("Player 1"), Seat("AI 1", "Expert"))
    return TableSetup("valdes", ValDesSettings(seats=2), seats, 7)
