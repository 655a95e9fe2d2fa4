"""The corpus's words: syllables and nouns for service names, birds for teams, the phrasings of a
service's note, and the texts of the memo and of the files that describe no service. All made up
here; `corpus.py` draws from them with its seeded generator."""

from __future__ import annotations

SYLLABLES = (
    "bra", "vel", "tor", "qui", "mon", "dal", "sen", "ka", "lo", "rin", "zu", "fe", "pax", "nor", "ty",
    "vo", "mir", "gan", "tes", "lu", "ost", "red", "cal", "im", "bel", "sor", "ach", "un", "pri", "dov",
)  # fmt: skip
NOUNS = (
    "sync", "relay", "ledger", "gate", "index", "broker", "cache", "feed", "vault", "router",
    "mirror", "quota", "notifier", "intake",
)  # fmt: skip
BIRDS = (
    "Finch", "Osprey", "Heron", "Wren", "Plover", "Kestrel", "Lark", "Egret", "Tern", "Avocet",
    "Curlew", "Dunlin", "Godwit", "Shrike", "Siskin", "Linnet", "Bunting", "Pipit", "Rook", "Petrel",
    "Gannet", "Puffin", "Harrier", "Crake", "Stint", "Whimbrel", "Dipper", "Ouzel", "Redpoll", "Twite",
    "Chough", "Nuthatch", "Merganser", "Bittern", "Sandpiper", "Warbler",
)  # fmt: skip
# A note states its two fields in the goal's own words (owns, owned, owning team, owner; p95 latency
# budget), in varied order and syntax. Cairn's quote check compares words, not meanings: a note
# that said "runs" for "owns" would measure paraphrase recall, which the near misses and LoCoMo
# measure; this corpus measures coverage, correction, near names and cost on a long run.
PROSE = (
    "The {name} service is owned by {team}. Its p95 latency budget is {ms} ms. It launched in {year}.",
    "{team} owns {name}; p95 latency budget: {ms} ms; launched {year}.",
    "# {Name}\n\nLaunched in {year}, {name} is owned by {team}. The latency budget for {name} at p95 is "
    "{ms} ms.",
    "{team} owns the {name} service, which went live in {year}. Latency budget (p95): {ms} milliseconds.",
    "## {Name}\n\n- Owning team: {team}\n- p95 latency budget: {ms} ms\n- Launched: {year}",
    "# {Name}\n\n{Name} has been in production since {year}. It is owned by {team}, and its p95 latency "
    "budget is {ms} ms.",
    "Service note: {name}. The team that owns it is {team}. p95 latency budget: {ms} ms. First launched "
    "{year}.",
)
NO_BUDGET = (
    "The {name} service is owned by {team} and launched in {year}. No p95 latency budget has been agreed "
    "for it yet."
)
FILLER = (
    "On-call for it rotates weekly.",
    "Its dashboards were rebuilt last quarter.",
    "Deploys go out twice a week.",
    "It has no public endpoint.",
    "Its runbook sits next to the code.",
)


def memo(date: str, team: str, service: str, new: int, old: int | None, where: str) -> str:
    """The dated memo that corrects one budget, naming the file that still gives the old one.

    >>> print(memo("2026-03-02", "Team Wren", "kalo", 200, 180, "kalo.md").splitlines()[0])
    # Memo, 2026-03-02
    """
    return (
        f"# Memo, {date}\n\nFrom: {team}, platform review\nTo: every service owner\n\n"
        f"Correction: the p95 latency budget of {service} is {new} ms, not the {old} ms that {where} "
        "gives. That figure predates the capacity review; the file has not been updated yet.\n\n"
        "No other budget changes.\n"
    )


def unrelated(first: str, second: str, third: str) -> dict[str, str]:
    """Files that name teams and define the terms but describe no service.

    >>> sorted(unrelated("Team A", "Team B", "Team C"))
    ['README.md', 'minutes-2026-02-17.md', 'oncall-handbook.md']
    """
    return {
        "README.md": (
            "# Service notes\n\nWhat each team wrote about the services it runs: one note per service, and "
            "registers that list several at once. Corrections come as dated memos.\n"
        ),
        "minutes-2026-02-17.md": (
            f"# Platform sync, minutes, 2026-02-17\n\nPresent: {first}, {second}, {third}.\n\n"
            f"- The capacity review starts next month; {first} collects the figures.\n"
            "- No one objected to moving the retro to Thursdays.\n"
            f"- Action: {second} to tidy the on-call calendar.\n"
        ),
        "oncall-handbook.md": (
            "# On-call handbook\n\nPage the owning team first. A p95 latency budget is the time within which "
            "95 of every 100 requests must finish; breaching it for an hour opens an incident. Each "
            "service's budget is set in its own note.\n"
        ),
    }
