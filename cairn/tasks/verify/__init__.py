"""The answer verifier."""
