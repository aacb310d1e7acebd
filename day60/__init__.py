"""day60: hold an AI-operations supplier to its contract, sixty days after go-live."""

__version__ = "0.1.0"
