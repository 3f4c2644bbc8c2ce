"""The demo table: bots that play both games, so the companion can be watched with no players."""
