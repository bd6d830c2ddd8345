"""Persistent state in SQLite: outcomes now; runs and generations later."""
