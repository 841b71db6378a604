"""The Textual terminal client (not built yet: ``fedrag ask`` is the client for now)."""
