"""The chat rooms of the lobby and of each table. With a Redis store each room is shared
with every host of the lobby: a line said here goes out to the others in order (held a
while when Redis is away), and a line said through another host is heard here."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from cantina.chat import ChatLine, ChatRates, ChatRoom
from cantina.lobby.table import SharedTable
from cantina.store.memory import StoreAway, stop_if_cancelled
from cantina.store.redis_store import RedisStore, Said

log = logging.getLogger("cantina.lobby")

HOST_VOICE = "cantina:host"
"""The identity of what the host itself says in a chat room."""
CHAT_QUEUE = 1000
"""Lines said here that may wait for a Redis away before the oldest are let go."""


class ChatRooms:
    """The lobby's room and each table's, and what goes between them and other hosts."""

    def __init__(
        self, tables: dict[str, SharedTable], shared: RedisStore | None, host_id: str
    ) -> None:
        self.tables = tables
        self.shared = shared
        self.host_id = host_id
        self.rates = ChatRates()
        """How often each person may speak, in the lobby and at every table."""
        self.lobby = ChatRoom(self.rates)
        """The lobby's own room: everyone connected."""
        self.read: dict[str, str] = {}
        """How far this host has read each room's shared chat ("" the lobby's)."""
        self.out: asyncio.Queue[tuple[str, ChatLine]] = asyncio.Queue(CHAT_QUEUE)
        """Lines said through this host, on their way to the other hosts."""
        if shared is not None:
            self.lobby.publish = self._sender("")

    def room(self, table: SharedTable) -> ChatRoom:
        """A table's chat room: shared with every host, unless its campaign keeps the
        table to this host."""
        room = ChatRoom(self.rates)
        if self.shared is not None and table.campaign is None:
            room.publish = self._sender(table.code)
        return room

    def _sender(self, room: str) -> Callable[[ChatLine], None]:
        def send(line: ChatLine) -> None:
            try:
                self.out.put_nowait((room, line))
            except asyncio.QueueFull:
                log.warning("chat: a line said here was not sent on (Redis away too long)")

        return send

    async def send(self, shared: RedisStore) -> None:
        """Send each line said here to the other hosts, in order; while Redis is away,
        try again every half second."""
        while True:
            stop_if_cancelled()  # see there: a dropped cancel must not keep this going
            room, line = await self.out.get()
            said = Said(self.host_id, line.identity, line.name, line.text, line.watching)
            while True:
                try:
                    await shared.say(room, said)
                    break
                except StoreAway:
                    stop_if_cancelled()
                    await asyncio.sleep(0.5)

    def heard(self, room: str, lines: list[Said]) -> None:
        """Lines said in a room through other hosts (this host's own are shown already)."""
        if room:
            table = self.tables.get(room)
            chat = table.chat if table is not None else None
        else:
            chat = self.lobby
        if chat is None:
            return
        for said in lines:
            if said.host != self.host_id:
                chat.hear(ChatLine(said.identity, said.name, said.text, said.watching))
