"""`cantina serve` with real clients: OpenSSH's ssh and sftp, and asyncssh for load and
faults, against a host on 127.0.0.1 on a free port in this test's event loop."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import signal
import stat
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest
from ssh_clients import (
    HAVE_OPENSSH,
    OpenSSH,
    connect,
    make_key,
    plain,
    run_client,
    ssh_options,
)

from cantina.ssh.app import colour_system
from cantina.ssh.keys import fingerprint, load_or_create_host_key, read_authorized_keys
from cantina.ssh.limits import PASTE_END, PASTE_START, InputBudget, InputGate, Limits
from cantina.ssh.server import MAX_SIZE, Host, HostOptions

needs_openssh = pytest.mark.skipif(not HAVE_OPENSSH, reason="OpenSSH client not installed")


@dataclasses.dataclass
class Keys:
    folder: Path
    player: Path
    partner: Path
    stranger: Path
    host_key: Path
    authorized: Path


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> Keys:
    folder = tmp_path_factory.mktemp("ssh")
    player = make_key(folder / "player")
    partner = make_key(folder / "partner")
    stranger = make_key(folder / "stranger")
    authorized = folder / "authorized_keys"
    authorized.write_text(
        f"# the players\nno-pty {player.with_suffix('.pub').read_text()}"
        + partner.with_suffix(".pub").read_text()
    )
    return Keys(folder, player, partner, stranger, folder / "host_key", authorized)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


async def start_host(
    keys: Keys, *, away_grace: float = 60.0, save_dir: Path | None = None, **limits: object
) -> Host:
    options = HostOptions(
        save_dir=save_dir,
        port=0,
        host_key=keys.host_key,
        authorized_keys=keys.authorized,
        limits=dataclasses.replace(Limits(), **limits),
        away_grace=away_grace,
        pace=0.05,
    )
    host = Host(options, read_authorized_keys(keys.authorized))
    await host.start(load_or_create_host_key(keys.host_key))
    return host


@pytest.fixture
async def host(keys):
    host = await start_host(keys)
    yield host
    await asyncio.wait_for(host.close(), 10)


def client_key(keys: Keys) -> asyncssh.SSHKey:
    return asyncssh.read_private_key(keys.player)


# --- keys and options -------------------------------------------------------------------------


def test_host_key_is_made_once_private_and_kept(tmp_path):
    path = tmp_path / "data" / "host_key"
    first = load_or_create_host_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_create_host_key(path)
    assert fingerprint(again) == fingerprint(first)
    assert fingerprint(first).startswith("SHA256:")


def test_authorized_keys_are_read_with_options_and_comments(keys, tmp_path):
    """asyncssh reads the file: a listed key (with options) comes in, an unlisted one does
    not, `from=` limits where a key may come from, a certificate authority's line admits
    nobody as a player, and a file with no key in it is refused at start, by name."""
    player = asyncssh.read_public_key(keys.player.with_suffix(".pub"))
    stranger = asyncssh.read_public_key(keys.stranger.with_suffix(".pub"))
    partner = asyncssh.read_public_key(keys.partner.with_suffix(".pub"))
    options = HostOptions(authorized_keys=keys.authorized)
    host = Host(options, read_authorized_keys(keys.authorized))
    assert host.admits(player, "127.0.0.1") and not host.admits(stranger, "127.0.0.1")
    fenced = tmp_path / "fenced"
    fenced.write_text(
        f'from="10.1.2.3" {keys.player.with_suffix(".pub").read_text()}'
        f"cert-authority {keys.partner.with_suffix('.pub').read_text()}"
    )
    host = Host(options, read_authorized_keys(fenced))
    assert host.admits(player, "10.1.2.3") and not host.admits(player, "127.0.0.1")
    assert not host.admits(partner, "127.0.0.1"), "an authority is not a player"
    assert read_authorized_keys(tmp_path / "missing") is None
    junk = tmp_path / "junk"
    junk.write_text("# a comment\n\nssh-ed25519 notbase64 x\n")
    with pytest.raises(ValueError, match="junk"):
        read_authorized_keys(junk)


@pytest.mark.parametrize(
    ("term", "env", "expected"),
    [
        ("xterm-256color", {}, "256"),
        ("xterm", {}, "standard"),
        ("vt100", {}, "standard"),
        ("xterm-256color", {"COLORTERM": "truecolor"}, "truecolor"),
        ("xterm-direct", {}, "truecolor"),
        (None, {}, "standard"),
    ],
)
def test_colour_depth_follows_the_clients_term(term, env, expected):
    assert colour_system(term, env) == expected


def test_input_budget_passes_typing_and_cuts_floods():
    now = [0.0]
    budget = InputBudget(rate=100, burst=1000, clock=lambda: now[0])
    assert budget.take(1) == 1
    assert budget.take(5000) == 999  # a huge paste: only the burst passes
    assert budget.take(10) == 0
    now[0] += 1.0
    assert budget.take(500) == 100  # then the sustained rate


def test_a_long_paste_is_closed_at_the_cap_and_the_rest_dropped():
    gate = InputGate(rate=1e9, paste_max=10)
    out = gate.filter(b"a" + PASTE_START + b"x" * 25)
    assert out == b"a" + PASTE_START + b"x" * 10 + PASTE_END
    assert gate.filter(b"y" * 100) == b""  # still the same paste: dropped
    assert gate.filter(b"yy" + PASTE_END[:3]) == b""
    assert gate.filter(PASTE_END[3:] + b"q") == b"q"  # its end (split) arrived: keys pass
    assert gate.filter(PASTE_START + b"short" + PASTE_END) == PASTE_START + b"short" + PASTE_END


def test_a_paste_cut_by_the_rate_is_closed():
    gate = InputGate(rate=0.0, paste_max=1000, clock=lambda: 0.0)  # a burst of 1064 bytes
    assert gate.filter(b"k" * 1000) == b"k" * 1000  # typing spent most of the budget
    out = gate.filter(PASTE_START + b"x" * 200)
    assert out == PASTE_START + b"x" * 58 + PASTE_END
    assert gate.discarding and gate.filter(b"x" * 10) == b""


def test_the_local_start_path_never_loads_asyncssh():
    """`cantina` to the menu: the command line, the app and the menu, without asyncssh."""
    check = (
        "import sys, cantina.cli, cantina.app, screens.menu;"
        "cantina.cli.build_parser().parse_args([]);"
        "bad = sorted(m for m in sys.modules if m.startswith('asyncssh') or m == 'cantina.ssh');"
        "sys.exit(f'loaded {bad}' if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# --- OpenSSH clients --------------------------------------------------------------------------


@needs_openssh
async def test_a_session_gets_the_lobby_then_the_menu_and_quits(host, keys):
    ssh = await OpenSSH.start(keys.player, host.port, "-tt")
    try:
        await ssh.expect("shared tables")
        await ssh.expect("No tables yet")
        assert len(host.sessions) == 1
        (session,) = host.sessions
        assert session.app is not None
        quits = [
            active.binding.key
            for active in session.app.active_bindings.values()
            if active.binding.show and active.binding.action.endswith("quit")
        ]
        assert quits == ["q"], "the footer offers one way to quit, not `q Quit  ^q Quit`"
        assert "your campaigns" in str(session.app.screen.query_one("#lobby-help").render())
        mark = ssh.mark()
        ssh.send("m")  # play alone: the cantina's own menu
        await ssh.expect("Resume a campaign", since=mark)
        await ssh.expect("Vigo's Favor", since=mark)
        ssh.send("q")
        assert await ssh.finish() == 0
    finally:
        ssh.kill()
    await asyncio.sleep(0.2)
    assert not host.sessions


REFUSALS = {
    "a command": ([], ["ls", "/"], "commands are not offered here"),
    "no terminal": (["-T"], [], "the cantina needs a terminal"),
    "local forwarding": (["-W", "127.0.0.1:9"], [], "port forwarding is not offered"),
    "remote forwarding": (
        ["-N", "-R", "0:127.0.0.1:9"],
        [],
        "port forwarding is not offered here",
    ),
    "X11 forwarding": (["-tt", "-X"], [], "X11 forwarding is not offered here"),
}


@needs_openssh
@pytest.mark.parametrize("case", sorted(REFUSALS))
async def test_each_refusal_has_its_message_and_leaks_nothing(host, keys, case):
    before, after, message = REFUSALS[case]
    status, out, err = await run_client(
        "ssh",
        *ssh_options(keys.player, host.port),
        *before,
        "player@127.0.0.1",
        *after,
        env={"DISPLAY": ":0"},
    )
    assert status != 0
    assert message in err, err
    assert b"Vigo" not in out and b"root" not in out and b"bin" not in out
    await asyncio.sleep(0.2)
    assert not host.sessions


@needs_openssh
async def test_agent_forwarding_is_refused(host, keys, tmp_path):
    socket = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(50):
            if socket.exists():
                break
            await asyncio.sleep(0.05)
        options = ssh_options(keys.player, host.port)
        at = options.index("IdentityAgent=none")
        del options[at - 1 : at + 1]
        status, out, err = await run_client(
            "ssh", *options, "-tt", "-A", "player@127.0.0.1", env={"SSH_AUTH_SOCK": str(socket)}
        )
    finally:
        agent.kill()
        agent.wait(5)
    assert status != 0
    assert "agent forwarding is not offered here" in err, err
    assert b"Vigo" not in out


@needs_openssh
async def test_sftp_is_refused(host, keys):
    options = ssh_options(keys.player, host.port)
    options[options.index("-p")] = "-P"
    status, out, err = await run_client("sftp", *options, "player@127.0.0.1")
    assert status != 0
    assert "subsystems (sftp and the like) are not offered here" in err, err
    assert b"sftp>" not in out


@needs_openssh
async def test_an_unknown_key_is_refused_by_default(host, keys):
    status, out, err = await run_client(
        "ssh", *ssh_options(keys.stranger, host.port), "-tt", "player@127.0.0.1"
    )
    assert status == 255
    assert "Permission denied (publickey)" in err
    assert b"Vigo" not in out


@needs_openssh
async def test_open_admits_any_key(keys):
    host = await start_host(keys)
    host.options.open = True
    try:
        ssh = await OpenSSH.start(keys.stranger, host.port, "-tt")
        try:
            await ssh.expect("shared tables")
        finally:
            ssh.kill()
    finally:
        await asyncio.wait_for(host.close(), 10)


# --- shared tables ----------------------------------------------------------------------------


async def set_a_shared_table(
    creator: OpenSSH, joiner: OpenSSH, key: str = "d", title: str = "Val-Des"
) -> str:
    """The creator sets a table (Val-Des: two seats for people, two AIs); the joiner
    joins by the code the creator's screen shows; the creator starts. The join code."""
    await creator.expect("shared tables")
    await joiner.expect("shared tables")
    setting = creator.mark()
    creator.send(key)  # a new table of that game
    await creator.expect("set the table")
    await creator.expect("Stand-in", since=setting)
    assert "Seed" not in plain(bytes(creator.output[setting:]))  # no foreseeable dice
    creator.send("\x13")  # ctrl+s
    await creator.expect("Press s to start")
    found = re.search(re.escape(title) + r", table ([A-Z0-9]{4})", creator.text)
    assert found, creator.text[-500:]
    code = found.group(1)
    mark = creator.mark()
    joiner.send("j")  # to the join-code field
    await asyncio.sleep(0.5)  # keys typed ahead would reach the list, before the focus moves
    joiner.send(code.lower() + "\r")
    await joiner.expect("to start the table (no seat free)")  # "Waiting for (creator) …"
    await creator.expect("bob", since=mark)  # the creator sees who sat down
    await creator.expect("Everyone is here: press s to start.", since=mark)
    creator.send("s")
    return code


async def take_turns(
    players: dict[str, OpenSSH], limit: int = 8, since: dict[str, int] | None = None
) -> list[str]:
    """Whoever is offered a call answers it (Val, key 1), until every player has moved
    once; the names of those who moved, in order. Offers are looked for in what each
    screen drew after `since` (default: now)."""
    moved: list[str] = []
    marks = dict(since) if since else {name: ssh.mark() for name, ssh in players.items()}
    for _ in range(limit):
        if set(moved) == set(players):
            break
        waits = {
            asyncio.create_task(ssh.expect(f"{name}, call Val or Des", since=marks[name])): name
            for name, ssh in players.items()
        }
        done, pending = await asyncio.wait(waits, timeout=20, return_when="FIRST_COMPLETED")
        for task in pending:
            task.cancel()
        assert done, "nobody was offered a call"
        first = done.pop()
        first.result()  # an offer that never came fails here
        name = waits[first]
        marks[name] = players[name].mark()
        players[name].send("1")
        moved.append(name)
    return moved


@needs_openssh
async def test_two_players_at_one_table_see_each_others_moves(keys):
    host = await start_host(keys)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        await set_a_shared_table(alice, bob)
        marks = {"alice": alice.mark(), "bob": bob.mark()}
        moved = await take_turns({"alice": alice, "bob": bob})
        assert set(moved) == {"alice", "bob"}
        # Each saw the other's call narrated on their own screen.
        await bob.expect("alice calls Val", since=marks["bob"])
        await alice.expect("bob calls Val", since=marks["alice"])
        # One table, shared: the same LiveTable, the AI seats played by its one dealer.
        (table,) = host.lobby.tables.values()
        assert table.live is not None and [s.name for s in table.setup.seats][:2] == [
            "alice",
            "bob",
        ]
        apps = [s.app for s in host.sessions]
        assert all(app.screen.table is table.live for app in apps)
        assert all(not app.screen.owns_dealer for app in apps)
        assert {app.screen.place.seats for app in apps} == {frozenset({0}), frozenset({1})}
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


@needs_openssh
async def test_a_spectator_watches_a_table_and_cannot_act(keys):
    host = await start_host(keys)
    host.options.open = True  # carol's key is not listed
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    carol = await OpenSSH.start(keys.stranger, host.port, "-tt", user="carol")
    try:
        code = await set_a_shared_table(alice, bob)
        started = {"alice": alice.mark(), "bob": bob.mark()}
        await carol.expect(code)  # the table is listed in carol's lobby
        await carol.expect("playing")
        mark = carol.mark()
        carol.send("w")  # watch the picked (only) table
        await carol.expect("Watching table", since=mark)
        await take_turns({"alice": alice, "bob": bob}, since=started)
        await carol.expect("alice calls", since=mark)
        await carol.expect("bob calls", since=mark)
        assert "carol, call" not in plain(bytes(carol.output[mark:]))
        (session,) = [s for s in host.sessions if s.gate.username == "carol"]
        assert session.app.screen.place.seats == frozenset()
        from screens.table import DecisionBar

        assert session.app.screen.query_one(DecisionBar).offered() == []
    finally:
        for ssh in (alice, bob, carol):
            ssh.kill()
        await asyncio.wait_for(host.close(), 10)


@needs_openssh
async def test_play_on_keeps_each_players_seat(keys):
    """A round of Vigo's Favor to its end; both play on from their result screens and
    each is back at their own seat, the dealer still the only AI player."""
    from screens.table import TableScreen

    host = await start_host(keys)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        await set_a_shared_table(alice, bob, key="v", title="Vigo's Favor")
        await alice.expect("set the stake")
        (table,) = host.lobby.tables.values()
        for _ in range(100):  # whatever is offered, the first option
            if table.live.game.pending is None:
                break
            alice.send("1")
            bob.send("1")
            await asyncio.sleep(0.2)
        assert table.live.game.pending is None
        await alice.expect("Next round")
        await bob.expect("Next round")
        first = table.live.game
        alice.send("n")
        bob.send("n")  # the round has begun: bob follows it
        for _ in range(50):
            screens = [s.app.screen for s in host.sessions]
            if table.live.game is not first and all(
                isinstance(screen, TableScreen) and screen.game is table.live.game
                for screen in screens
            ):
                break
            await asyncio.sleep(0.1)
        assert table.live.game is not first
        for s in host.sessions:  # one table screen each (none left over under it)
            assert [type(x).__name__ for x in s.app.screen_stack] == ["LobbyScreen", "VigoScreen"]
        seats = {s.gate.username: s.app.screen.place.seats for s in host.sessions}
        assert seats == {"alice": frozenset({0}), "bob": frozenset({1})}
        assert not any(s.app.screen.owns_dealer for s in host.sessions)
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


@needs_openssh
async def test_a_player_who_leaves_for_the_lobby_is_stood_in_for(keys):
    host = await start_host(keys, away_grace=1.0)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        await set_a_shared_table(alice, bob)
        await take_turns({"alice": alice, "bob": bob})
        (table,) = host.lobby.tables.values()
        mark = alice.mark()
        bob.send("\x1b")  # Escape: back to the lobby, still connected
        await bob.expect("Your seat waits for you")
        bob.send("y")
        await alice.expect("has left the table", since=mark)
        await take_turns({"alice": alice}, limit=4, since={"alice": mark})
        await alice.expect("a Cautious AI plays", since=mark)  # the stand-in plays bob's seat
        await alice.expect("bob calls", since=mark)
        assert table.dealer.standing_in == {1}
        mark = alice.mark()
        back = bob.mark()
        bob.send("\r")  # Enter on the table in the lobby: back to the seat
        await alice.expect("is back", since=mark)
        assert table.dealer.standing_in == set()
        await bob.expect("Leave", since=back)  # the table's keys again
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


PLAN_LABEL = re.compile(r"\((Attacker|Victim|Supporter), (left|right)\)")
"""What only a Supporter's own options show: the target's role and the direction."""


@needs_openssh
async def test_only_the_supporter_sees_their_secret_choice(keys):
    host = await start_host(keys)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        await set_a_shared_table(alice, bob, key="i", title="Victim!")
        players = {"alice": alice, "bob": bob}
        waits = {
            asyncio.create_task(ssh.expect(f"{name}, choose target and die", timeout=30)): name
            for name, ssh in players.items()
        }
        done, pending = await asyncio.wait(waits, timeout=40, return_when="FIRST_COMPLETED")
        for task in pending:
            task.cancel()
        assert done, "no person was the Supporter"
        planner = waits[done.pop()]
        other = "bob" if planner == "alice" else "alice"
        for _ in range(50):  # the planner's options are drawn
            if PLAN_LABEL.search(players[planner].text):
                break
            await asyncio.sleep(0.1)
        assert PLAN_LABEL.search(players[planner].text)
        await players[other].expect(f"Waiting for {planner}")
        await asyncio.sleep(0.5)
        # The other player's terminal never received the choices, nor does their screen
        # hold them: it renders only its own seat's secrets.
        assert not PLAN_LABEL.search(players[other].text)
        (session,) = [s for s in host.sessions if s.gate.username == other]
        from screens.table import DecisionBar

        assert session.app.screen.query_one(DecisionBar).offered() == []
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


@needs_openssh
async def test_a_player_who_drops_is_stood_in_for_and_gets_the_seat_back(keys):
    host = await start_host(keys, away_grace=1.0)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    again = None
    try:
        await set_a_shared_table(alice, bob)
        await take_turns({"alice": alice, "bob": bob})
        (table,) = host.lobby.tables.values()
        mark = alice.mark()
        bob.kill()  # bob's connection drops
        await alice.expect("has left the table", since=mark)
        # After the grace, a Cautious AI plays bob's seat when it is his turn, visibly to
        # the others; alice answers her own calls meanwhile (the seed is random, so
        # either may be next).
        for _ in range(200):
            if "a Cautious AI plays" in plain(bytes(alice.output[mark:])):
                break
            live = table.live
            decision = live.game.pending if live is not None else None
            if decision is not None and decision.seat == 0:
                moves = len(live.moves)
                await asyncio.sleep(0.3)  # her offer is on her screen
                alice.send("1")
                for _ in range(50):
                    if len(live.moves) > moves:
                        break
                    await asyncio.sleep(0.1)
            await asyncio.sleep(0.1)
        await alice.expect("a Cautious AI plays", since=mark)
        assert table.dealer.standing_in == {1}
        stand_in = alice.mark()
        await take_turns({"alice": alice}, limit=4, since={"alice": mark})
        await alice.expect("bob calls", since=stand_in)
        # bob comes back with the same key (another name on the command line changes
        # nothing: the key is who he is) and goes straight back to his seat.
        mark = alice.mark()
        again = await OpenSSH.start(keys.partner, host.port, "-tt", user="robert")
        await alice.expect("is back", since=mark)
        assert table.dealer.standing_in == set()
        moved = await take_turns({"alice": alice, "bob": again}, since={"alice": mark, "bob": 0})
        assert "bob" in moved
        session = next(s for s in host.sessions if s.gate.username == "robert")
        assert session.app.screen.place.seats == frozenset({1})
    finally:
        alice.kill()
        bob.kill()
        if again is not None:
            again.kill()
        await asyncio.wait_for(host.close(), 10)


# --- guests, logins ---------------------------------------------------------------------------


def keyless(keys: Keys, port: int) -> list[str]:
    """OpenSSH offering no key at all (keyboard-interactive, no prompts expected)."""
    options = ssh_options(keys.player, port)
    options[options.index("BatchMode=yes")] = "PubkeyAuthentication=no"
    return options


@needs_openssh
async def test_keyless_guests_only_with_their_own_flag(host, keys):
    status, _, err = await run_client(
        "ssh", *keyless(keys, host.port), "-o", "NumberOfPasswordPrompts=0", "g@127.0.0.1"
    )
    assert status == 255 and "Permission denied" in err
    host.options.guests = True
    process = await asyncio.create_subprocess_exec(
        "ssh",
        *keyless(keys, host.port),
        "-tt",
        "guest@127.0.0.1",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    guest = OpenSSH(process)
    try:
        await guest.expect("shared tables")
        (session,) = host.sessions
        assert session.gate.identity.startswith("guest:")
        assert session.app is not None and not session.app.campaigns_allowed, (
            "a guest has no key to come back with, so no campaigns to keep"
        )
        help_line = str(session.app.screen.query_one("#lobby-help").render())
        assert "campaign" not in help_line and "? helps" in help_line, help_line
    finally:
        guest.kill()


async def test_a_client_that_never_logs_in_is_cut_off(keys):
    host = await start_host(keys, login_timeout=1.0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
        banner = await asyncio.wait_for(reader.readline(), 5)
        assert banner.startswith(b"SSH-2.0-")
        started = asyncio.get_running_loop().time()
        while await asyncio.wait_for(reader.read(4096), 10):  # silent: never logs in
            pass
        assert asyncio.get_running_loop().time() - started < 5
        writer.close()
    finally:
        await asyncio.wait_for(host.close(), 10)


# --- asyncssh clients: load and faults --------------------------------------------------------


async def test_a_connection_flood_is_bounded_by_max_sessions(keys):
    host = await start_host(keys, max_sessions=3, per_address=10)
    key = client_key(keys)
    try:
        results = await asyncio.wait_for(
            asyncio.gather(*(connect(host.port, key) for _ in range(8))), 60
        )
        terminals = [terminal for _, _, terminal in results]
        await asyncio.wait_for(
            asyncio.gather(
                *(t.closed.wait() for t in terminals if b"full" in t.errors or t.closed.is_set())
            ),
            5,
        )
        await asyncio.sleep(1.0)
        refused = [t for t in terminals if b"the cantina is full" in t.errors]
        running = [t for t in terminals if not t.closed.is_set()]
        assert len(running) == 3 and len(refused) == 5
        assert len(host.sessions) == 3
        for t in running:
            await t.expect("shared tables")
    finally:
        for conn, _, _ in results:
            conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_per_address_limit(keys):
    host = await start_host(keys, per_address=2)
    key = client_key(keys)
    conns = []
    try:
        for _ in range(3):
            conns.append(await connect(host.port, key))
        third = conns[2][2]
        await asyncio.wait_for(third.closed.wait(), 10)
        assert b"too many sessions from your address" in third.errors
        assert len(host.sessions) == 2
    finally:
        for conn, _, _ in conns:
            conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_an_oversized_paste_is_cut_and_the_session_lives(keys):
    host = await start_host(keys, paste_max=4096, input_rate=2048)
    key = client_key(keys)
    conn, chan, terminal = await connect(host.port, key)
    try:
        await terminal.expect("shared tables")
        paste = b"\x1b[200~" + b"x" * (2 << 20) + b"\x1b[201~"
        chan.write(paste)
        await asyncio.sleep(1.0)
        assert not terminal.closed.is_set()
        session = next(iter(host.sessions))
        assert session.gate_input.budget.tokens < 4096  # the burst spent, the rest dropped
        # The session still answers: `s` opens the settings.
        mark = len(terminal.output)
        await asyncio.sleep(2.0)  # let the budget refill a little
        chan.write(b"m")
        await terminal.expect("Resume a campaign", since=mark)
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_session_killed_mid_game_ends_alone(keys):
    host = await start_host(keys)
    key = client_key(keys)
    a = await connect(host.port, key, user="alice")
    b = await connect(host.port, key, user="bob")
    try:
        await a[2].expect("shared tables")
        await b[2].expect("shared tables")
        a[1].write(b"v")  # a new Vigo's Favor table
        await a[2].expect("set the table")
        a[1].write(b"\x13")  # ctrl+s: set it
        await a[2].expect("Press s to start")
        a[1].write(b"s")  # start it: the stand-in AI takes the free seat
        await a[2].expect("set the stake")
        a[0].abort()  # killed mid-game
        for _ in range(50):
            if len(host.sessions) == 1:
                break
            await asyncio.sleep(0.1)
        assert len(host.sessions) == 1
        mark = len(b[2].output)
        b[1].write(b"m")  # the other session is untouched: its menu opens
        await b[2].expect("Resume a campaign", since=mark)
    finally:
        a[0].close()
        b[0].close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_client_that_stops_reading_is_dropped_and_stalls_nobody(keys):
    host = await start_host(keys, write_buffer=64 * 1024)
    key = client_key(keys)
    stalled = await connect(host.port, key, window=8192)
    other = await connect(host.port, key)
    try:
        await stalled[2].expect("shared tables")
        await other[2].expect("shared tables")
        stalled[1].pause_reading()
        loop = asyncio.get_running_loop()
        for n in range(500):  # each resize is a whole new frame the client never reads
            stalled[1].change_terminal_size(100 + n % 20, 30 + n % 5)
            await asyncio.sleep(0.02)
            if n >= 60 and len(host.sessions) == 1:
                break  # dropped (resizes coalesce: how many frames 60 made varied)
        # Meanwhile the other player's keys are answered promptly.
        mark = len(other[2].output)
        started = loop.time()
        other[1].write(b"m")
        arrived = await other[2].expect("Resume a campaign", since=mark, timeout=10)
        assert arrived - started < 5.0
        for _ in range(100):
            if len(host.sessions) == 1:
                break
            await asyncio.sleep(0.1)
        assert len(host.sessions) == 1
        assert next(iter(host.sessions)).gate.conn is not stalled[0]
    finally:
        stalled[0].close()
        other[0].close()
        await asyncio.wait_for(host.close(), 10)


async def test_an_idle_session_is_ended_with_a_word(keys):
    host = await start_host(keys, idle_timeout=1.0)
    key = client_key(keys)
    conn, _chan, terminal = await connect(host.port, key)
    try:
        await terminal.expect("shared tables")
        await asyncio.wait_for(terminal.closed.wait(), 10)
        assert b"idle for too long" in terminal.errors
        assert not host.sessions
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_an_exception_in_one_session_ends_that_session_only(keys):
    host = await start_host(keys)
    key = client_key(keys)
    a = await connect(host.port, key, user="alice")
    b = await connect(host.port, key, user="bob")
    try:
        await a[2].expect("shared tables")
        await b[2].expect("shared tables")
        (broken,) = [s for s in host.sessions if s.gate.username == "alice"]

        def fault() -> None:
            raise RuntimeError("a bug in a screen")

        broken.app.call_later(fault)  # as a bug in a handler of alice's app would
        await asyncio.wait_for(a[2].closed.wait(), 10)
        assert b"something went wrong" in a[2].errors
        assert b"a bug in a screen" not in a[2].output + a[2].errors  # details stay here
        assert len(host.sessions) == 1
        mark = len(b[2].output)
        b[1].write(b"m")
        await b[2].expect("Resume a campaign", since=mark)
    finally:
        a[0].close()
        b[0].close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_hostile_name_is_shown_as_text(keys):
    """A user name with markup (an action on click, even) is shown to the other players
    as the characters it is, cut to 16, never interpreted."""
    host = await start_host(keys)
    hostile = "[b]eve[/b][@click=app.quit]"
    eve = await connect(host.port, client_key(keys), user=hostile)
    bob = await connect(host.port, asyncssh.read_private_key(keys.partner), user="bob")
    try:
        await eve[2].expect("shared tables")
        await bob[2].expect("shared tables")
        eve[1].write(b"v")
        await eve[2].expect("set the table")
        eve[1].write(b"\x13")
        await eve[2].expect("Press s to start")
        await bob[2].expect("by [b]eve[/b][@cli")
        (table,) = host.lobby.tables.values()
        assert table.creator.name == hostile[:16]
    finally:
        eve[0].close()
        bob[0].close()
        await asyncio.wait_for(host.close(), 10)


@needs_openssh
async def test_a_name_with_control_characters_is_refused(host, keys):
    status, out, err = await run_client(
        "ssh", *ssh_options(keys.player, host.port), "-tt", "-l", "eve\x1b[31m", "127.0.0.1"
    )
    assert status == 255
    assert "Prohibited character" in err
    assert b"shared tables" not in out


async def test_a_giant_terminal_is_drawn_at_the_largest_size_only(keys):
    host = await start_host(keys)
    conn, chan, terminal = await connect(host.port, client_key(keys), term_size=(100000, 100000))
    try:
        await terminal.expect("shared tables")
        (session,) = host.sessions
        assert tuple(session.app.size) == MAX_SIZE
        resizes = []
        resized = session.driver.resized
        session.driver.resized = lambda w, h: (resizes.append((w, h)), resized(w, h))
        for n in range(200):  # a flood of window changes: a few redraws, not 200
            chan.change_terminal_size(81 + n % 50, 30)
            if n % 20 == 0:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)
        assert tuple(session.app.size) == (81 + 199 % 50, 30)  # the last one counts
        assert 1 <= len(resizes) < 20
        assert len(host.sessions) == 1
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


def test_sessions_share_parsed_stylesheets():
    from cantina.ssh.styles import SharedStylesheet

    css = "Button { width: 10; color: $primary; }"
    sheets = [SharedStylesheet(variables={"primary": "red"}) for _ in range(2)]
    for sheet in sheets:
        sheet.add_source(css, read_from=("test", "css"))
        sheet.parse()
    assert sheets[0].rules[0] is sheets[1].rules[0]
    other = SharedStylesheet(variables={"primary": "blue"})
    other.add_source(css, read_from=("test", "css"))
    other.parse()
    assert other.rules[0] is not sheets[0].rules[0]  # another theme, its own rules


async def test_a_resize_redraws_at_the_new_size(keys):
    host = await start_host(keys)
    conn, chan, terminal = await connect(host.port, client_key(keys))
    try:
        await terminal.expect("shared tables")
        session = next(iter(host.sessions))
        chan.change_terminal_size(120, 40)
        for _ in range(50):
            if session.app is not None and tuple(session.app.size) == (120, 40):
                break
            await asyncio.sleep(0.05)
        assert tuple(session.app.size) == (120, 40)
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


def test_serve_prints_where_and_the_host_keys_fingerprint(tmp_path):
    key = tmp_path / "host_key"
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", "serve", "--open", "--port", "0", "--host-key", str(key)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CANTINA_CONFIG_DIR": str(tmp_path)},
    )
    try:
        lines = [process.stdout.readline() for _ in range(3)]
    finally:
        process.terminate()
        process.wait(20)
    assert lines[0].startswith("cantina: serving on 127.0.0.1 port ")
    expected = fingerprint(asyncssh.read_private_key(key))
    assert lines[2].strip() == f"cantina: host key fingerprint {expected}"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


@needs_openssh
async def test_sigterm_closes_the_host_telling_its_players(keys, tmp_path):
    """A service manager's stop (SIGTERM) closes the host as Ctrl-C does: each player is
    told the host is closing, and it ends with status 0 and no traceback (it ended where
    it stood, and its players saw only their connection drop)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cantina",
        "serve",
        "--port",
        "0",
        "--host-key",
        str(keys.host_key),
        "--authorized-keys",
        str(keys.authorized),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "CANTINA_CONFIG_DIR": str(tmp_path)},
    )
    assert process.stdout is not None and process.stderr is not None
    ssh = None
    try:
        first = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        found = re.search(r"port (\d+)", first)
        assert found, first
        ssh = await OpenSSH.start(keys.player, int(found.group(1)), "-tt")
        await ssh.expect("shared tables")
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 20) == 0
        await asyncio.wait_for(ssh.process.wait(), 10)
        assert "cantina: the host is closing" in ssh.errors.decode(), ssh.errors
        log = (await process.stderr.read()).decode()
        assert "Traceback" not in log, log
    finally:
        if ssh is not None:
            ssh.kill()
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_serve_refuses_to_start_with_nobody_admitted(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "cantina", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CANTINA_CONFIG_DIR": str(tmp_path)},
    )
    assert done.returncode == 2
    assert "--authorized-keys" in done.stderr


async def test_each_player_keeps_campaigns_of_their_own(keys, tmp_path):
    """Hosted campaigns: a player with a key starts one from the menu over SSH; it is
    autosaved in a folder of that key's own, listed again when they come back, and never
    shown to another player; nobody over SSH may export a save onto the host's disk."""
    saves = tmp_path / "saves"
    host = await start_host(keys, save_dir=saves)
    try:
        conn, chan, screen = await connect(host.port, client_key(keys))
        await screen.expect("shared tables")
        for key, words in (("m", "Resume a campaign"), ("c", "which game"), ("d", "Ante")):
            mark = len(screen.output)
            chan.write(key.encode())
            await screen.expect(words, since=mark)
        mark = len(screen.output)
        chan.write(b"\x13")  # ctrl+s: start the campaign
        await screen.expect("game 1 of 5", since=mark)
        (mine,) = list((saves / "players").glob("*/campaign.json"))
        assert not list(saves.glob("*.json")), "nothing in the host's own list"
        conn.close()
        await asyncio.sleep(0.3)

        conn, chan, screen = await connect(host.port, asyncssh.read_private_key(keys.partner))
        await screen.expect("shared tables")
        for key, words in (("m", "Resume a campaign"), ("u", "none yet")):
            mark = len(screen.output)
            chan.write(key.encode())
            await screen.expect(words, since=mark)
        assert "Campaign" not in plain(bytes(screen.output[mark:])).replace("Campaigns in", "")
        conn.close()

        conn, chan, screen = await connect(host.port, client_key(keys))
        await screen.expect("shared tables")
        for key, words in (("m", "Resume a campaign"), ("u", "Val-Des, game 1 of 5")):
            mark = len(screen.output)
            chan.write(key.encode())
            await screen.expect(words, since=mark)
        await screen.expect("Rename", since=mark)
        shown = plain(bytes(screen.output[mark:]))
        assert "Export" not in shown and str(saves) not in shown, "nothing of the host's disk"
        assert mine.exists()
        conn.close()
    finally:
        await asyncio.wait_for(host.close(), 10)


async def test_a_campaign_at_a_shared_table_saves_every_move(keys, tmp_path):
    """Hosted campaigns at a shared table: a player sets one of their saved campaigns at
    a table, another joins by its code, and each move by either is saved to it, with the
    save locked against any other cantina while the table is open."""
    from cantina.campaign.series import Campaign
    from cantina.campaign.store import InUse, Store, load
    from cantina.games.valdes import ValDesSettings
    from cantina.seating import seats_from_text
    from cantina.ssh.keys import fingerprint

    host = await start_host(keys, save_dir=tmp_path / "saves")
    try:
        mine = client_key(keys)
        folder = host.player_saves(fingerprint(mine))
        campaign = Campaign.new(
            "Shared Night",
            "valdes",
            seats_from_text("you,you,Expert"),
            ValDesSettings(seats=3),
            rounds=2,
            seed=5,
        )
        path = Store(folder).create(campaign)

        conn_a, chan_a, screen_a = await connect(host.port, mine, user="ann")
        await screen_a.expect("shared tables")
        mark = len(screen_a.output)
        chan_a.write(b"c")
        await screen_a.expect("Shared Night", since=mark)
        await asyncio.sleep(0.3)  # the list has the focus
        chan_a.write(b"\r")
        await screen_a.expect("Press s to start", since=mark)
        (code,) = host.lobby.tables
        conn_b, chan_b, screen_b = await connect(
            host.port, asyncssh.read_private_key(keys.partner), user="bob"
        )
        await screen_b.expect("shared tables")
        chan_b.write(b"j")
        await asyncio.sleep(0.5)
        chan_b.write(code.encode() + b"\r")
        await screen_b.expect("Waiting for ann to start the table")
        chan_a.write(b"s")
        table = host.lobby.tables[code]
        for _ in range(100):
            if table.live is not None:
                break
            await asyncio.sleep(0.1)
        assert table.live is not None and table.live.keeper is table.campaign.campaign
        with pytest.raises(InUse):
            Store(folder).open(path)

        ann = fingerprint(mine)
        channels = {
            seat: chan_a if player.identity == ann else chan_b
            for seat, player in table.seated.items()
        }
        assert sorted(channels) == [0, 1], "both people are seated"
        people = 0
        for _ in range(200):
            decision = table.live.game.pending
            if decision is not None and decision.seat in channels:
                before = len(table.live.moves)
                await asyncio.sleep(0.3)  # the offer drawn on that player's screen
                channels[decision.seat].write(b"1")
                for _ in range(50):
                    if len(table.live.moves) > before:
                        break
                    await asyncio.sleep(0.1)
                assert len(table.live.moves) > before, "the player's call was taken"
                people += 1
                saved = load(path).data.table
                assert saved is not None and json.loads(bytes(saved.moves)), "and saved"
                if people >= 2:
                    break
            await asyncio.sleep(0.1)
        assert people >= 2
        conn_a.close()
        conn_b.close()
    finally:
        await asyncio.wait_for(host.close(), 10)
    Store(folder).open(path).close()  # the host let the campaign go when it closed
