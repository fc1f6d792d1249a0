"""Campaigns (CA-1, CA-2): a series of rounds with a fixed roster and carried banks, kept in
crash-safe JSON files that resume at any decision. No textual here."""
