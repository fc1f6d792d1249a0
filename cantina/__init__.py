"""Cantina: chance-cube dice games from a space cantina, in the terminal."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("cantina")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
