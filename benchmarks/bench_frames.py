"""What one frame costs the host to send over SSH, by cipher and by writes per frame.

An asyncssh server on 127.0.0.1 (as the host's, in this process) writes frames of
--bytes to one real OpenSSH client (`ssh -tt`, a process of its own that reads them), and
the server thread's CPU time is divided by the frames. For each cipher (and MAC) a client
may ask for: once as Textual writes a frame for a terminal with synchronised output (its
start, the frame and its end: three writes), once as the host's driver sends it (one).
Each figure is the median of --rounds rounds of --frames frames. The client's own cost
is not in it (another process).

    .venv/bin/python benchmarks/bench_frames.py [--frames 3000] [--rounds 5] [--bytes 900]

Why the host offers no chacha20-poly1305 nor umac (server.CIPHERS, server.MACS) and sends
a frame as one write (driver.ChannelDriver.write): with asyncssh each packet is work for
the host however small it is, and a chacha20-poly1305 packet costs several AES ones.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time

import asyncssh

CIPHERS = (
    ("chacha20-poly1305@openssh.com", ""),
    ("aes128-gcm@openssh.com", ""),
    ("aes128-ctr", "umac-64-etm@openssh.com"),
    ("aes128-ctr", "hmac-sha2-256-etm@openssh.com"),
)
"""(cipher, MAC): an AEAD cipher has a MAC of its own."""
SYNC_START, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"


async def measure(cipher: str, mac: str, frames: int, rounds: int, size: int) -> dict[str, float]:
    """Microseconds of the server thread's CPU per frame, by writes per frame."""
    frame = b"x" * size
    spent: dict[str, list[float]] = {"3 writes": [], "1 write": []}
    done = asyncio.Event()

    async def serve(process: asyncssh.SSHServerProcess) -> None:
        chan = process.channel
        for _ in range(rounds):
            for how in spent:
                started = time.thread_time()
                for n in range(frames):
                    if how == "3 writes":
                        chan.write(SYNC_START)
                        chan.write(frame)
                        chan.write(SYNC_END)
                    else:
                        chan.write(SYNC_START + frame + SYNC_END)
                    if n % 20 == 19:
                        await process.stdout.drain()  # as the window allows
                spent[how].append((time.thread_time() - started) / frames * 1e6)
        process.exit(0)
        done.set()

    class Open(asyncssh.SSHServer):
        def begin_auth(self, username: str) -> bool:
            return False

    server = await asyncssh.create_server(
        Open,
        "127.0.0.1",
        0,
        server_host_keys=[asyncssh.generate_private_key("ssh-ed25519")],
        process_factory=serve,
        encoding=None,
        encryption_algs=[cipher],
        **({"mac_algs": [mac]} if mac else {}),
    )
    port = server.sockets[0].getsockname()[1]
    client = await asyncio.create_subprocess_exec(
        "ssh", "-F", "/dev/null", "-p", str(port), "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", f"Ciphers={cipher}",
        *(["-o", f"MACs={mac}"] if mac else []), "-tt", "bench@127.0.0.1",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await asyncio.wait_for(done.wait(), 300)
        await client.wait()
    finally:
        if client.returncode is None:
            client.kill()
        server.close()
        await server.wait_closed()
    return {how: statistics.median(times) for how, times in spent.items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bytes", type=int, default=900)
    args = parser.parse_args()
    if shutil.which("ssh") is None:
        raise SystemExit("bench: the OpenSSH client (ssh) is not installed")
    print(
        f"the host's CPU per frame of {args.bytes} bytes sent over SSH, median of "
        f"{args.rounds} rounds of {args.frames} frames (microseconds)"
    )
    for cipher, mac in CIPHERS:
        costs = await measure(cipher, mac, args.frames, args.rounds, args.bytes)
        named = f"{cipher} {mac}".strip()
        print(
            f"  {named:44} 3 writes {costs['3 writes']:6.1f}   1 write {costs['1 write']:6.1f}"
            f"   ({costs['3 writes'] / costs['1 write']:.1f}x)"
        )


if __name__ == "__main__":
    asyncio.run(main())
