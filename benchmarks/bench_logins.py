"""How long honest logins take to reach the lobby while eight players type, and what the
logins cost those players.

A host as `bench_ssh.py --abuse` runs it (the shipped limits and work budget), with eight
players typing from one address a key a second (a letter, then Backspace), as behind one
router. Each round, from fresh addresses: a first login; a second session from that
address 1 s later; a third 1 s after that (an address's third session within `CHURN`
starts as one of many, as a table hog's do, and is held while others type); and, from
another address, a player back 1 s after leaving. Prints each login's time to the
lobby's title, and the typists' keystroke->echo median and p95 over the whole run.

    flock /tmp/bench.lock .venv/bin/python benchmarks/bench_logins.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import asyncssh
from bench_ssh import connect_as, free_port, honest_crowd, pct, start_abuse_host, typists


async def login(port: int, key: asyncssh.SSHKey, name: str, address: str, into: list[float]):
    started = time.perf_counter()
    _, conn, _ = await connect_as(port, key, name, address)
    into.append(time.perf_counter() - started)
    return conn


async def run(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        host = start_abuse_host(port, Path(folder) / "host_key")
        try:
            key = asyncssh.generate_private_key("ssh-ed25519")
            honest = await honest_crowd(port, key)
            echoes: list[float] = []
            typing = asyncio.gather(*typists(honest, 8 + rounds * 10, echoes))
            first: list[float] = []
            second: list[float] = []
            third: list[float] = []
            back: list[float] = []
            for r in range(rounds):
                address, other = f"127.0.0.{20 + r}", f"127.0.0.{60 + r}"
                one = await login(port, key, f"p{r}", address, first)
                await asyncio.sleep(1.0)
                two = await login(port, key, f"p{r}b", address, second)
                await asyncio.sleep(1.0)
                three = await login(port, key, f"p{r}c", address, third)
                await asyncio.sleep(1.0)
                for conn in (three, two, one):
                    conn.close()
                left = await login(port, key, f"q{r}", other, [])
                await asyncio.sleep(1.0)
                left.close()
                await asyncio.sleep(1.0)
                again = await login(port, key, f"q{r}", other, back)
                await asyncio.sleep(1.0)
                again.close()
                await asyncio.sleep(1.0)
            await typing
        finally:
            host.terminate()
            host.wait()

    def ms(values: list[float]) -> str:
        return " ".join(f"{v * 1000:.0f}" for v in values)

    print(f"first login, ms:                {ms(first)}")
    print(f"second session, same address:   {ms(second)}")
    print(f"third session, same address:    {ms(third)}")
    print(f"back 1 s after leaving:         {ms(back)}")
    print(
        f"typists: {len(echoes)} keys, median {statistics.median(echoes) * 1000:.1f} ms, "
        f"p95 {pct(echoes, 0.95) * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
