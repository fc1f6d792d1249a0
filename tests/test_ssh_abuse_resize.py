"""A resize storm (bench_ssh.py --abuse d: sessions of one address sending window changes
every 5 ms) against the host, with real asyncssh clients on 127.0.0.1: what the host does
with the storm's bytes, and what each resize costs it."""

from __future__ import annotations

import asyncio

import asyncssh
import test_ssh_budget
from ssh_clients import make_key, plain
from test_ssh_budget import connect_from, start_host

from cantina.ssh.budget import READ_STEP, RESIZE_POLL, WorkBudget
from screens import textual_compat
from screens.textual_compat import Compositor

host_key = test_ssh_budget.host_key
"""A host key's path in the test's own folder (test_ssh_budget's fixture)."""


async def test_a_storms_bytes_are_read_a_few_milliseconds_at_a_time(tmp_path, host_key):
    """Three thousand window changes sent at once (some 200 KB): the host reads them
    `READ_STEP` of work at a time, one turn of the loop each, so another player's key
    waits at most that long behind them. (Read in slices of 4 KB until the session was
    in debt, a fresh session's burst of them was read whole in one step: 64 KB at once,
    a tenth of a second of the loop.)"""
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, chan, _ = await connect_from(host.port, "127.0.0.2", key)
    try:
        (session,) = host.sessions
        reader = session.gate.reader
        assert reader is not None
        read_by_step: list[int] = []
        ssh_layer, drain = reader._read, reader._drain

        def counted_read(chunk: bytes) -> None:
            read_by_step[-1] += len(chunk)
            ssh_layer(chunk)

        def counted_drain() -> None:
            read_by_step.append(0)
            drain()

        reader._read = counted_read  # type: ignore[method-assign]
        reader._drain = counted_drain  # type: ignore[method-assign]
        for n in range(3000):
            chan.change_terminal_size(*((100, 40), (80, 24))[n % 2])
        for _ in range(400):  # until the host has read them all
            await asyncio.sleep(0.05)
            if sum(read_by_step) > 150_000 and not reader.inbox:
                break
        total = sum(read_by_step)
        assert total > 150_000, total
        # Each turn read what READ_STEP of work reads, and a slice more: a few KB.
        assert max(read_by_step) <= 16_384, (max(read_by_step), READ_STEP)
        assert reader.steps > 0
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_resize_draws_one_full_frame(tmp_path, host_key, monkeypatch):
    """Each resize a session's app is given draws the screen whole once, at its new size
    (Textual drew it twice: the second for the screen's own new virtual size, a third of
    a resize's cost), and the screen is all there at the new size."""
    full_frames: list[tuple[int, int]] = []
    render_full_update = Compositor.render_full_update

    def counted(self: Compositor, simplify: bool = False):
        full_frames.append(tuple(self.size))
        return render_full_update(self, simplify)

    monkeypatch.setattr(Compositor, "render_full_update", counted)
    # the back room keeps its full frames (`keep_full_frames`): its compositor draws one
    # that is not the last through Textual's own, kept aside as it was
    monkeypatch.setattr(textual_compat, "TEXTUAL_RENDER_FULL_UPDATE", counted)
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, chan, terminal = await connect_from(host.port, "127.0.0.1", key)
    try:
        (session,) = host.sessions
        app = session.app
        for size in ((100, 40), (90, 30), (120, 45)):
            await asyncio.sleep(0.5)  # the last frame is out
            full_frames.clear()
            mark = len(terminal.output)
            chan.change_terminal_size(*size)
            for _ in range(100):
                await asyncio.sleep(0.05)
                if tuple(app.size) == size and session.budget.quiet():
                    break
            await asyncio.sleep(0.5)
            assert tuple(app.size) == size
            assert full_frames == [size]
            drawn = bytes(terminal.output[mark:])
            assert "shared tables" in plain(drawn)
            assert f"\x1b[{size[1]};1H".encode() in drawn  # down to its last row
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_window_change_flood_ends_its_session_and_a_drag_does_not(tmp_path, host_key):
    """A client sending window changes far past `Limits.resize_rate` (a storm: each one
    costs the host a packet's decrypting and dispatching, whatever is drawn) has its
    session ended, told why in one line; a player dragging their terminal's corner (a
    few dozen changes in a second or two) keeps theirs, at the size they let go at."""
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    storm = await connect_from(host.port, "127.0.0.2", key)
    drag = await connect_from(host.port, "127.0.0.1", key)
    try:
        dragged = next(s for s in host.sessions if s.gate.address == "127.0.0.1")
        for n in range(60):  # 1.5 s of a drag, a change every 25 ms
            drag[1].change_terminal_size(80 + n // 2, 24 + n // 4)
            await asyncio.sleep(0.025)
        for n in range(1000):  # a storm: a thousand at once
            storm[1].change_terminal_size(*((100, 40), (80, 24))[n % 2])
        await asyncio.wait_for(storm[2].closed.wait(), 30)
        assert "too many window changes" in storm[2].errors.decode()
        for _ in range(100):
            if tuple(dragged.app.size) == (109, 38):
                break
            await asyncio.sleep(0.05)
        assert tuple(dragged.app.size) == (109, 38)
        assert dragged in host.sessions and not drag[2].closed.is_set()
    finally:
        for conn, _, _ in (storm, drag):
            conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_size_held_alone_is_looked_at_ten_times_a_second(tmp_path, host_key):
    """A new size held while its session is in debt (no key held with it) is looked at
    every `RESIZE_POLL`, not every 10 to 20 ms (eight storming sessions' looks at their
    budget were a tenth of the host's busy time, charged to nobody), and is given once
    the debt is paid."""
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, chan, _ = await connect_from(host.port, "127.0.0.2", key)
    try:
        (session,) = host.sessions
        pacer, budget = session.pacer, session.budget
        assert budget is not None
        looks = 0
        look = pacer._next

        def counted() -> None:
            nonlocal looks
            looks += 1
            look()

        pacer._next = counted  # type: ignore[method-assign]
        await asyncio.sleep(0.5)
        chan.change_terminal_size(100, 40)
        while pacer.size != (100, 40):  # read, not yet given (RESIZE_QUIET)
            await asyncio.sleep(0.002)
        budget.charge(3.0)  # deep in debt: it waits out its debt, whoever is at work
        await asyncio.sleep(1.5)
        assert session.app.size.width == 80  # held
        assert 5 <= looks <= 1.5 / RESIZE_POLL + 3, looks
        for bucket in budget.buckets:  # paid
            bucket.tokens, bucket.debt_until = bucket.burst, bucket.clock()
        for _ in range(40):
            if tuple(session.app.size) == (100, 40):
                break
            await asyncio.sleep(0.05)
        assert tuple(session.app.size) == (100, 40)
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_session_given_only_new_sizes_is_not_typing(tmp_path, host_key):
    """A session resized (and given no key) is not a player typing, whom the long steps
    of heavier sessions pause for: a resize storm's sessions counted as typing all the
    time, and eight players of one address, about as heavy as the storm held to its
    share, paused after each of their own frames for it. A key makes a session typing."""
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, chan, _ = await connect_from(host.port, "127.0.0.2", key)
    try:
        (session,) = host.sessions
        budget = session.budget
        assert budget is not None
        await asyncio.sleep(0.5)  # its start-up is over (not typing either)
        assert budget not in WorkBudget.typing
        chan.change_terminal_size(100, 40)
        for _ in range(40):
            if tuple(session.app.size) == (100, 40):
                break
            await asyncio.sleep(0.05)
        assert tuple(session.app.size) == (100, 40)
        assert budget not in WorkBudget.typing
        assert budget.account not in WorkBudget.typing_by
        chan.write(b"j")
        for _ in range(40):
            if budget in WorkBudget.typing:
                break
            await asyncio.sleep(0.05)
        assert budget in WorkBudget.typing
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_an_address_whose_sessions_keep_flooding_window_changes_is_held(tmp_path, host_key):
    """Two sessions of one address ended for a flood of window changes within a minute:
    its next connection is refused at once, before its key exchange, told why and for
    how long in one line; another address logs in as before."""
    host = await start_host(host_key, strikes=2, strike_wait=30)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    try:
        for _ in range(2):
            conn, chan, terminal = await connect_from(host.port, "127.0.0.2", key)
            try:
                for n in range(1000):
                    chan.change_terminal_size(*((100, 40), (80, 24))[n % 2])
                await asyncio.wait_for(terminal.closed.wait(), 30)
                assert "too many window changes" in terminal.errors.decode()
            finally:
                conn.close()
        started = asyncio.get_running_loop().time()
        try:
            await connect_from(host.port, "127.0.0.2", key)
        except asyncssh.DisconnectError as refused:
            assert refused.reason.startswith(
                "cantina: sessions from your address were ended for too many window "
                "changes; try again in 30 s"
            ), refused.reason
        else:
            raise AssertionError("a third connection from the flooding address got in")
        assert asyncio.get_running_loop().time() - started < 2
        conn, _, _ = await connect_from(host.port, "127.0.0.1", key)
        conn.close()
    finally:
        await asyncio.wait_for(host.close(), 10)
