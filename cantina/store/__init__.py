"""Where the shared tables of a host are kept: in the host's memory, or in Redis.

The host applies each decision at one place (the table's `Dealer`), and with a durable
store it records the decision there first, under the table's version number, so a host
that restarts rebuilds every open table from its seed and its recorded decisions. See
`records` (what is kept, as JSON), `memory` (the in-process store and the interface) and
`redis_store` (the same in Redis).
"""
