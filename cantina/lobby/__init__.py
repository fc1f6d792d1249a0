"""The shared tables of a host: who sits where, who is here, and each table's dealer.

`lobby` holds the `Lobby`, the one place the host's sessions ask; `table` what a shared
table is and what a store keeps of it; `codes` the join and rejoin codes.
"""

from cantina.lobby.lobby import Lobby
from cantina.lobby.table import Player, SharedTable

__all__ = ["Lobby", "Player", "SharedTable"]
