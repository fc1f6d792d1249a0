"""Hosting the cantina over SSH: `cantina serve`.

Every SSH session runs its own Textual app inside the server's process and event loop,
drawn through a driver that writes to the session's channel. Shared tables are then
plain shared objects: one `LiveTable`, one screen per player on it. Only this package and
`cantina.app` import textual; asyncssh is imported here and nowhere on the local path.
"""
