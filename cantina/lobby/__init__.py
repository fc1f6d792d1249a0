"""The shared tables of a host: who sits where, who is here, and each table's dealer.

`lobby` holds the `Lobby`, the one place the host's sessions ask, which coordinates the
rest, each owned by it and none calling it: `table` (what a shared table is, and what a
store keeps of it), `presence` (who is here, who is away, which tables nobody holds),
`seats` (who sits where, rejoin codes), `dealers` (each table's dealer, at its start or
rebuilt from the store), `codes` (join and rejoin codes, and wrong tries), `rooms` (the
chat), `notices` (Redis away and back, told at the tables), and, for a lobby shared
through Redis, `hosts` (following the other hosts, the beat, leases, seat claims) and
`code_pool` (the join codes a host holds ahead).
"""

from cantina.lobby.lobby import Lobby
from cantina.lobby.table import Player, SharedTable

__all__ = ["Lobby", "Player", "SharedTable"]
