"""Four short team documents a new user tried: five questions they answer, four one word away that
they do not (each a near miss of an answerable one). Shared by the verifier and loop tests."""

from __future__ import annotations

TEAMS = """# Teams

## Team Falcon
Team Falcon owns the billing service and the payments API. The team is led by Priya Nandakumar
and sits in the Lisbon office.

## Team Kestrel
Team Kestrel owns the data platform and the nightly exports. It is led by Tomasz Wierzbicki.

## Team Heron
Team Heron owns the search gateway and the catalogue indexer.

## Team Osprey
Team Osprey owns notifications (email, SMS, push) and the preferences store. The team sits in the
Porto office.
"""
SLOS = """# Service level objectives

Budgets are for the 95th percentile (p95) of request latency.

| service | p95 latency budget (ms) | availability |
|---|---|---|
| billing | 180 | 99.95% |
| notifications | 400 | 99.5% |
| search gateway | 250 | 99.9% |
"""
OFFICES = """# Offices

The Lisbon office is on the river front. The Porto office opened in 2024.
Read the service level objectives and your team's runbooks.
"""
FILES = {"teams.md": TEAMS, "slos.md": SLOS, "offices.md": OFFICES}
ANSWERABLE = [
    ("Who leads Team Falcon?", "Priya Nandakumar"),
    ("Which office does Team Osprey sit in?", "Porto"),
    ("What is the p95 latency budget of the notifications service?", "400 ms"),
    ("Who leads the team that owns the data platform?", "Tomasz Wierzbicki"),
    ("Which team owns the billing service?", "Team Falcon"),
]
NEAR_MISSES = [  # one word away from an answerable question; no file states the answer
    "Which office does Team Kestrel sit in?",
    "Who leads Team Osprey?",
    "What is the p99 latency budget of the notifications service?",
    "Who leads the team that owns the search gateway?",
]
