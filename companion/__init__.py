"""The Uno table companion: cards, rule engines, the referee and the `companion` command line."""

__version__ = "0.1.0"
