"""The paraphrased corpus's words: what each kind is called, how a goal asks for its two fields,
and how a user's files state them without any of the goal's words for them.

Two kinds. A `service` has an owning team and a p95 latency budget (ms); a `dataset` has a
steward (a person) and a retention period (days). For each field the goal side and the file side
share no content word: a goal asks for "the team that owns it", a file says "maintained by Team
Wren" or "Team Wren answers the pager for it"; a goal asks for "its p95 latency budget", a file
says "95 of every 100 requests must finish within 180 ms". `FieldWords.forbidden` lists the goal's
content words for a field (as regexes on whole words); no file the generator writes holds one.

Every phrasing here is made up for this bench. A template's `{item}` / `{Item}` is the item's name
(capitalised at a sentence's start), `{value}` the field's value as written (a team, a person, a
quantity with its unit such as `180 ms` or `13 weeks`).

>>> sorted(KINDS)
['dataset', 'service']
>>> KINDS["service"].figure.forbidden
('p95', 'latency', 'budgets?')
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from long_suites.grade import DAYS, MS, Fields

SYLLABLES = (
    "ka", "vel", "tor", "qui", "mon", "dal", "sen", "bri", "lo", "rin", "zu", "fe", "nax", "tur", "sy",
    "va", "mir", "gan", "tes", "lu", "ast", "red", "cal", "im", "bel", "sor", "ach", "un", "pri", "dov",
    "ke", "ma", "zor", "il", "ne", "pho",
)  # fmt: skip
SERVICE_NOUNS = (
    "relay", "gate", "broker", "cache", "router", "mirror", "notifier", "intake", "dispatch", "scheduler",
    "resolver", "signer",
)  # fmt: skip
DATASET_NOUNS = (
    "events", "orders", "snapshots", "sessions", "invoices", "telemetry", "signups", "clicks", "payouts",
    "refunds", "audits", "shipments",
)  # fmt: skip
BIRDS = (
    "Avocet", "Bittern", "Brambling", "Bunting", "Chiffchaff", "Chough", "Coot", "Crossbill", "Curlew",
    "Dipper", "Dotterel", "Dunnock", "Eider", "Fieldfare", "Firecrest", "Fulmar", "Gadwall", "Garganey",
    "Godwit", "Goldcrest", "Goosander", "Grebe", "Greenshank", "Hobby", "Hoopoe", "Jackdaw", "Kittiwake",
    "Knot", "Lapwing", "Linnet", "Mallard", "Merlin", "Moorhen", "Nightjar", "Nuthatch", "Oriole",
    "Pintail", "Pochard", "Redshank", "Redstart", "Ruff", "Sanderling", "Scaup", "Shag", "Shoveler",
    "Skylark", "Smew", "Snipe", "Stonechat", "Swift", "Teal", "Treecreeper", "Turnstone", "Waxwing",
    "Wheatear", "Whinchat", "Wigeon", "Woodlark", "Wryneck", "Yellowhammer",
)  # fmt: skip
GIVEN_NAMES = (
    "Ines", "Tomasz", "Aiko", "Bram", "Chiara", "Dev", "Elif", "Farid", "Greta", "Hugo", "Ilse", "Jonas",
    "Kemal", "Lucia", "Matteo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Soren", "Tala", "Umar",
    "Vera", "Wiebke", "Xiomara", "Yusuf", "Zofia",
)  # fmt: skip
FAMILY_NAMES = (
    "Okafor", "Lindqvist", "Castellanos", "Brandt", "Nakamura", "Haddad", "Moreau", "Kowalczyk", "Achebe",
    "Varga", "Quispe", "Henriksen", "Delacroix", "Tanaka", "Oyelaran", "Ferreira", "Novak", "Abernathy",
    "Sato", "Marchetti", "Eriksen", "Mbeki", "Rautio", "Szabo", "Valdivia", "Whitcombe",
)  # fmt: skip


class Spelling(BaseModel):
    """One way to write a quantity: `per` base units make one of `word` (`s`: 1000 ms), with at
    most `places` decimals (a spelling that would need more is not used for that value)."""

    model_config = ConfigDict(frozen=True)

    word: str
    per: int = 1
    places: int = 0

    def fits(self, value: int) -> bool:
        return (value * 10**self.places) % self.per == 0

    def write(self, value: int) -> str:
        amount = f"{value / self.per:.{self.places}f}".rstrip("0").rstrip(".") if self.places else None
        return f"{amount or value // self.per} {self.word}"


class FieldWords(BaseModel):
    """One field of a kind, both sides.

    `goal`: how goals word it (each a phrase a goal may use as is); `forbidden`: the content words
    of those phrases, as whole-word regexes, that no file may use for it. `named` / `bare`: file
    sentences stating it with the item named or without (a pronoun, a label under a heading).
    `keys` / `headers`: how registers and front matter label it. `absent`: sentences saying no
    value was set (a figure field only). `spellings`: how a quantity is written (a figure only)."""

    model_config = ConfigDict(frozen=True)

    goal: tuple[str, ...]
    forbidden: tuple[str, ...]
    named: tuple[str, ...]
    bare: tuple[str, ...]
    keys: tuple[str, ...]
    headers: tuple[str, ...]
    absent: tuple[str, ...] = ()
    spellings: tuple[Spelling, ...] = ()


class KindSpec(BaseModel):
    """A kind of item: its noun, its two fields (a name field and a figure field with a unit),
    how to draw their values, the item's own words, and how the ledger is graded."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    singular: str
    plural: str
    name: FieldWords
    figure: FieldWords
    draw_name: Callable[[random.Random], str]
    draw_figure: Callable[[random.Random], int]
    nouns: tuple[str, ...]  # second words of two-word item names
    item_keys: tuple[str, ...]  # how a register labels the item column
    about: tuple[str, ...]  # a sentence that introduces an item and states no field
    filler: tuple[str, ...]  # a sentence about an item that states no field
    decoy: str  # a sentence with another figure, not the field's (`{n}` a number)
    correction: str  # the memo's line: `{item}`, the `{new}` and `{old}` quantities, `{where}`
    grading: Fields

    def forbidden(self, field: FieldWords) -> re.Pattern[str]:
        """One regex matching any of the field's goal content words as a word (case aside).

        >>> bool(KINDS["service"].forbidden(KINDS["service"].name).search("Owned by Team Shag"))
        True
        """
        return re.compile(r"\b(?:" + "|".join(field.forbidden) + r")\b", re.I)


def _team(rng: random.Random) -> str:
    return f"Team {rng.choice(BIRDS)}"


def _person(rng: random.Random) -> str:
    return f"{rng.choice(GIVEN_NAMES)} {rng.choice(FAMILY_NAMES)}"


def _budget_ms(rng: random.Random) -> int:
    return rng.randrange(30, 1500, 10)


def _retention_days(rng: random.Random) -> int:
    # Whole weeks often (a week count is a spelling of its own), any day count otherwise.
    return rng.randrange(2, 110) * 7 if rng.random() < 0.4 else rng.randrange(5, 800)


SERVICE = KindSpec(
    singular="service",
    plural="services",
    name=FieldWords(
        goal=("the team that owns it", "its owner", "the owning team", "who owns it", "the owner (a team)"),
        forbidden=("own", "owns", "owned", "owner", "owners", "owning", "ownership"),
        named=(
            "{Item} is maintained by {value}.",
            "{value} runs {item}.",
            "{Item} is looked after by {value}.",
            "{Item} is stewarded by {value}.",
            "{value} is on call for {item}.",
            "{value} answers the pager for {item}.",
            "Day-to-day care of {item} sits with {value}.",
        ),
        bare=(
            "It is maintained by {value}.",
            "{value} runs it.",
            "On call for it: {value}.",
            "Responsible team: {value}.",
            "It is looked after by {value}.",
            "Maintainers: {value}.",
        ),
        keys=("maintainer", "on_call_team", "responsible_team", "run_by", "looked_after_by"),
        headers=("Maintained by", "On-call team", "Responsible team", "Run by"),
    ),
    figure=FieldWords(
        goal=(
            "its p95 latency budget",
            "the p95 latency budget (in milliseconds)",
            "its p95 budget",
            "the p95 latency budget in ms",
        ),
        forbidden=("p95", "latency", "budgets?"),
        named=(
            "The 95th-percentile response time target for {item} is {value}.",
            "95 of every 100 requests to {item} must finish within {value}.",
            "At the 95th percentile, {item} must answer in under {value}.",
            "{Item} has a tail response-time ceiling (95th percentile) of {value}.",
        ),
        bare=(
            "95th-percentile response time target: {value}.",
            "95 of every 100 requests must finish within {value}.",
            "Tail response-time ceiling (95th percentile): {value}.",
            "At the 95th percentile it must answer in under {value}.",
            "Its 95th-percentile response time has to stay under {value}.",
        ),
        keys=("response_target_ms_95th", "ms_at_95th_percentile", "tail_response_ms", "slo_95th_ms"),
        headers=(
            "95th-pct response target (ms)",
            "Tail response ceiling, ms (95th)",
            "Answer within (ms, 95%)",
        ),
        absent=(
            "No response-time target has been agreed for it yet.",
            "Nobody has set a 95th-percentile response-time target for it so far.",
            "Its response-time target at the 95th percentile is still to be decided.",
        ),
        spellings=(
            Spelling(word="ms"),
            Spelling(word="ms"),
            Spelling(word="milliseconds"),
            Spelling(word="s", per=1000, places=2),
            Spelling(word="seconds", per=1000, places=2),
        ),
    ),
    draw_name=_team,
    draw_figure=_budget_ms,
    nouns=SERVICE_NOUNS,
    item_keys=("service", "name", "system"),
    about=(
        "{Item} is an internal service that batches outgoing mail.",
        "{Item} turns partner uploads into queued jobs.",
        "{Item} sits in front of the search cluster.",
        "{Item} signs and stamps every outgoing receipt.",
        "{Item} is the service behind the mobile sign-in screen.",
        "{Item} fans incoming webhooks out to the teams that asked for them.",
    ),
    filler=(
        "Deploys go out twice a week.",
        "Its dashboards were rebuilt last quarter.",
        "It has no public endpoint.",
        "Its runbook sits next to the code.",
        "A rewrite in Rust is under discussion.",
    ),
    decoy="Its median response time is usually near {n} ms.",
    correction=(
        "Correction: the 95th-percentile response-time target of {item} is {new}, not the {old} that "
        "{where} gives. That figure predates the capacity review; the file has not been updated yet."
    ),
    grading=Fields(
        name_label="owner",
        figure_label="budget",
        name_header=r"\bown|\bteam\b|\bwho\b|\bmaintain|\brun",
        figure_header=r"p95|latency|budget|millisecond|\bms\b|response|95th",
        unit=MS,
    ),
)

DATASET = KindSpec(
    singular="dataset",
    plural="datasets",
    name=FieldWords(
        goal=("its steward", "the steward (a person)", "who stewards it", "the person who stewards it"),
        forbidden=("stewards?", "stewarded", "stewarding", "stewardship"),
        named=(
            "{Item} is curated by {value}.",
            "{value} looks after {item}.",
            "Questions about {item} go to {value}.",
            "{value} is the point of contact for {item}.",
            "{Item} is in the care of {value}.",
        ),
        bare=(
            "Curated by {value}.",
            "Data custodian: {value}.",
            "{value} looks after it.",
            "Point of contact: {value}.",
            "It is in the care of {value}.",
        ),
        keys=("curator", "contact", "data_custodian", "cared_for_by"),
        headers=("Curated by", "Point of contact", "Data custodian"),
    ),
    figure=FieldWords(
        goal=(
            "its retention period",
            "the retention period (in days)",
            "its retention period in days",
            "the retention period",
        ),
        forbidden=("retention", "retain", "retains", "retained", "periods?"),
        named=(
            "Records in {item} are deleted {value} after they arrive.",
            "Rows of {item} older than {value} are purged every night.",
            "{Item} keeps each record for {value}, then drops it.",
            "Entries in {item} live for {value} before they are erased.",
        ),
        bare=(
            "Records are deleted {value} after they arrive.",
            "Rows older than {value} are purged every night.",
            "Each record is kept for {value}, then dropped.",
            "Time to live for each record: {value}.",
            "Deletion schedule: {value} after arrival.",
        ),
        keys=("delete_after_days", "ttl_days", "purge_after_days", "kept_days"),
        headers=("Deleted after (days)", "TTL, days", "Kept for (days)"),
        absent=(
            "No deletion schedule has been agreed for it yet.",
            "Nobody has decided how long its records are kept.",
            "How long its rows are kept is still open.",
        ),
        spellings=(Spelling(word="days"), Spelling(word="days"), Spelling(word="weeks", per=7)),
    ),
    draw_name=_person,
    draw_figure=_retention_days,
    nouns=DATASET_NOUNS,
    item_keys=("dataset", "name", "table"),
    about=(
        "{Item} is the dataset the billing reports read from.",
        "{Item} collects what the checkout pages log.",
        "{Item} is loaded from the partner feeds each morning.",
        "{Item} is the warehouse copy of the support queue.",
        "{Item} feeds the weekly fraud review.",
    ),
    filler=(
        "Access is granted through the usual request form.",
        "Its schema changed last spring.",
        "Personal fields are masked before loading.",
        "It is mirrored to the analytics cluster.",
    ),
    decoy="It is refreshed every {n} hours.",
    correction=(
        "Correction: records in {item} are now deleted {new} after they arrive, not the {old} that "
        "{where} gives. Legal asked for the change; the file has not been updated yet."
    ),
    grading=Fields(
        name_label="steward",
        figure_label="retention",
        name_header=r"\bsteward|\bcustodian|\bwho\b|\bperson\b|\bcurat|\bcontact",
        figure_header=r"\bretention|\bretain|\bperiod|\bdays?\b|\bttl\b|\bkept\b|\bdelet",
        unit=DAYS,
    ),
)

KINDS: dict[str, KindSpec] = {"service": SERVICE, "dataset": DATASET}

# Goal wordings per kind: `{name}` and `{figure}` are filled with the field's goal phrases. None is
# the service corpus's GOAL ("Summarise, for every service described in the corpus, ...").
GOALS: dict[str, tuple[str, ...]] = {
    "service": (
        "List each service with the team that owns it and its p95 latency budget.",
        "Which team owns each service, and what is its p95 latency budget?",
        "The owning team and the p95 latency budget (in milliseconds) of every service.",
        "For all services in these files, give the owner and the p95 latency budget.",
        "I need a table of every service: who owns it and its p95 latency budget.",
        "For each service, report its owner (a team) and its p95 latency budget (in milliseconds).",
        "Go through these notes service by service and tell me the owning team and the p95 budget.",
        "Build a ledger of the services described here: for each one, its owner and its p95 latency "
        "budget in ms.",
    ),
    "dataset": (
        "List each dataset with its steward and its retention period.",
        "Who stewards each dataset, and what is its retention period?",
        "The steward and the retention period (in days) of every dataset.",
        "For all datasets in these files, give the steward and the retention period.",
        "I need a table of every dataset: who stewards it and its retention period.",
        "For each dataset, report its steward (a person) and its retention period in days.",
        "Go through these notes dataset by dataset and tell me the steward and the retention period.",
        "Build a ledger of the datasets described here: for each one, the person who stewards it and "
        "the retention period (in days).",
    ),
}


def unrelated(spec: KindSpec, teams: list[str]) -> dict[str, str]:
    """Files that name teams and define the kind's terms but describe no item (3 or 4 of them,
    in the files' own words, never the goal's).

    >>> sorted(unrelated(SERVICE, ["Team Coot", "Team Smew", "Team Knot", "Team Ruff"]))
    ['README.md', 'glossary.md', 'minutes-2026-02-17.md', 'rota.md']
    """
    first, second, third, fourth = teams[:4]
    files = {
        "README.md": (
            f"# {spec.plural.capitalize()}\n\nWhat each team wrote down about the {spec.plural} it looks "
            "after: a note per item, front matter, and registers that list several at once. "
            "Corrections come as dated memos.\n"
        ),
        "minutes-2026-02-17.md": (
            f"# Platform sync, minutes, 2026-02-17\n\nPresent: {first}, {second}, {third}.\n\n"
            f"- The capacity review starts next month; {first} collects the figures.\n"
            "- No one objected to moving the retro to Thursdays.\n"
            f"- Action: {second} to tidy the on-call calendar.\n"
        ),
        "rota.md": (
            "# Support rota, spring\n\n| week | first line | second line |\n| --- | --- | --- |\n"
            f"| 10 | {first} | {fourth} |\n| 11 | {third} | {second} |\n| 12 | {fourth} | {first} |\n"
        ),
    }
    if spec.singular == "service":
        files["glossary.md"] = (
            "# Glossary\n\n- **95th-percentile response time**: the time within which 95 of every 100 "
            "requests finish.\n- **Maintainer**: the team paged first when something breaks.\n"
            "- **Tail**: the slowest requests, the ones past the 95th percentile.\n"
        )
    else:
        files["glossary.md"] = (
            "# Glossary\n\n- **Time to live**: how long a record is kept before it is purged.\n"
            "- **Curator**: the person who answers questions about a dataset and approves access.\n"
            "- **Purge**: the nightly job that deletes expired rows.\n"
        )
    return files
