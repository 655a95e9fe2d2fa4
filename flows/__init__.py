"""Cairn flows: the task loop, one BFS iteration, loop policy, CLI."""
