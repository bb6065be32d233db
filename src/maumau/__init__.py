"""Mau Mau: rules engine, game records, bots and an online game."""

__version__ = "0.1.0"
