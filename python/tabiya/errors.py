"""The exceptions tabiya raises; each message is the one-line message the CLI prints."""


class TabiyaError(Exception):
    """Anything tabiya reports: the base of every exception it raises."""


class InvalidInput(TabiyaError, ValueError):
    """Bad input: a FEN, moves, a key, a pattern, a material signature, a filter, an option."""


class DatabaseError(TabiyaError):
    """The database cannot be used: locked by a writer, of another format, an I/O error."""


class DatabaseNotFound(DatabaseError, FileNotFoundError):
    """No tabiya database at the path (ingest games first)."""


class CorruptDatabase(DatabaseError):
    """Stored data that does not decode: the database is damaged, not the request."""


__all__ = ["TabiyaError", "InvalidInput", "DatabaseError", "DatabaseNotFound", "CorruptDatabase"]
