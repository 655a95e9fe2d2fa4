"""The words of English the checks and the offline model need by name, each list once.

What a question asks, where a value phrase ends, which capitalised word is a name and which a
month: the code decides these partly by closed classes of words (prepositions, determiners,
auxiliaries, wh-words, pronouns) and by a few small lexical classes (weekdays, months, number
words, the verbs an instruction opens with). They live here and nowhere else, so two readers of
one class cannot drift apart unnoticed (`tests/unit/tasks/test_lexicon.py` fails on a word list
defined anywhere else under `cairn.tasks`). Where callers had drifted apart before the lists met
here, each keeps the words it had, as a second set named for what it is used for and built from
the first (`NOT_NAMES_IN_UNITS`, `NOT_NAMES_IN_QUESTIONS`).

`FUNCTION_WORDS` belongs to the memory room (its keyword index and embedders drop them, and memory
never imports `cairn.tasks`); it is named here as well, so this is the one place to look.

A room of its own, with no module behind its face: language data, not grounding logic (and the
grounding room holds its sixteen modules, the most a room may).

>>> "with" in PREPOSITIONS, "because" in PREPOSITIONS
(True, False)
>>> WEEKDAY_ABBREVIATIONS[:2], MONTH_ABBREVIATIONS[-1]
(('mon', 'tue'), 'dec')
"""

from __future__ import annotations

from cairn.memory.embed.words import FUNCTION_WORDS


def _words(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string (easier to read and edit)."""
    return frozenset(text.split())


# --- closed classes ------------------------------------------------------------------------------

# Wh-words: what a question opens with when it asks for something rather than yes or no.
WH_WORDS = _words("who whom whose what which when where why how")
# The finite forms of `be`: a question's copula (`what is ...`: a value of the subject).
BE_FORMS = _words("is are was were")
# Auxiliaries and modals: the verb a yes/no question opens with (`does`, `can`, `is`).
AUXILIARIES = BE_FORMS | _words("does do did can could will would should has have had shall may might must")
# Prepositions: a question's head is the last word before the first of them (`the budget of the
# service`: budget), and a value phrase stops at one.
PREPOSITIONS = _words(
    "of for to in on at with from about into by after before during over under since until without "
    "within through across around near than as like"
)
# Relative pronouns: what opens a relative clause (`the team that owns ...`).
RELATIVE_PRONOUNS = _words("that which who whose whom where")
# Articles.
ARTICLES = _words("a an the")
# Demonstratives.
DEMONSTRATIVES = _words("this that these those")
# Possessive determiners (`its budget`, `their office`).
POSSESSIVE_DETERMINERS = _words("my your his her our their its")
# Determiners: what stands before a noun and is not part of its name or value.
DETERMINERS = ARTICLES | POSSESSIVE_DETERMINERS | DEMONSTRATIVES | _words("some")
# Quantifiers: `each`, `every`, `all` of a kind (a name is never only these).
QUANTIFIERS = _words("each every all any some no other another")
# Third-person pronouns: a part or a sentence holding one points at what an earlier one named.
THIRD_PERSON_PRONOUNS = _words("it its they their them he his him she her")
# `I` and its contractions: capitalised by spelling, never a name.
I_FORMS = _words("i i'm i've i'd i'll")
# What `how` asks with (`how many`, `how long`, `how tall`): the question asks for a figure.
HOW_MEASURES = _words("many much long far old big large often fast tall high wide heavy")
# Negations: a sentence holding one says the opposite of the same words without it.
NEGATIONS = _words("not no never none nobody nothing neither nor without cannot")
# Short words that join the capitalised words of one name (`Peabody Museum of Archaeology and
# Ethnology`, `Charles de Gaulle`).
NAME_JOINERS = _words("of the de and for du la von van der")
# Interjections and greetings that set a name off as the one spoken to (`Thanks, Melanie!`), in
# the order the vocative pattern tries them.
INTERJECTIONS: tuple[str, ...] = (
    "hey", "hi", "hello", "thanks", "thank you", "oh", "wow", "yes", "yeah", "well", "sorry",
    "congrats", "congratulations", "dear",
)  # fmt: skip

# --- small lexical classes -----------------------------------------------------------------------

# The weekdays, Monday first (`date.weekday()` counts from it).
WEEKDAYS: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Their first three letters, in the same order: how `last Sun` or `last Sunday` is matched.
WEEKDAY_ABBREVIATIONS = tuple(day[:3] for day in WEEKDAYS)
# The months in order (January is 1), each with the spellings a date writes it in.
MONTH_SPELLINGS: tuple[tuple[str, ...], ...] = (
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec"),
)  # fmt: skip
# Every spelling of a month.
MONTHS = frozenset(spelling for month in MONTH_SPELLINGS for spelling in month)
# The months' first three letters, in order: what a month's name starts with however it is spelled.
MONTH_ABBREVIATIONS = tuple(month[0][:3] for month in MONTH_SPELLINGS)
# Number words, `one` first: a word's place is its value.
NUMBER_WORDS: tuple[str, ...] = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
)  # fmt: skip
# Scale words a figure is written with (`1.26 million litres`), and what each multiplies by.
SCALE_WORDS: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
# Nouns `what`/`which` asks a date with (`what day`, `which year`).
DATE_NOUNS = _words("date day month year time")
# Nouns a question asks a time with, the long spans included (`which century`, `what era`).
TEMPORAL_NOUNS = DATE_NOUNS | _words("century decade period era")
# Nouns `what` asks a figure with (`what percentage`, `what number of`).
COUNT_NOUNS = _words("percentage number amount count share proportion")
# Verbs an instruction opens with (`Summarise the notes`): such a sentence asks for something.
INSTRUCTION_VERBS = _words(
    "list name give find summarise summarize write explain describe compare compute calculate "
    "count tell state report identify show create make build implement add fix answer provide "
    "determine estimate check say outline extract collect gather draft prepare rank sort translate "
    "convert produce generate update refactor test document review analyse analyze evaluate "
    "assess recommend suggest propose plan design define"
)
# Labels that restate the goal (`Question: ...`): their words answer nothing.
RESTATING_LABELS = _words("question goal task answer")
# Words that ask for code: a goal holding one is a coding task.
CODE_WORDS = _words(
    "implement implementation function functions bug bugs fix test tests unittest pytest refactor "
    "script python code class module compile debug api cli library package program endpoint"
)
# Verbs that ask for research.
RESEARCH_VERBS = _words("research compare summarize summarise investigate analyse analyze analysis survey")
# Research's verbs and nouns: a goal holding one (and not a short question) is a research task.
RESEARCH_WORDS = RESEARCH_VERBS | _words("report review sources literature comparison overview")
# The words rules are made of: a sentence holding one may state a rule.
RULE_WORDS = _words(
    "never always must mustn't should shouldn't don't do not avoid prefer only keep make sure remember "
    "instead rather please stop ensure forbid forbidden required require"
)
# Words any rule is phrased with; a rule's substance is the rest.
RULE_PHRASING = _words("never always must avoid prefer only do not don't use rule instead rather ensure")

# --- sets named for their use (each built from the classes above; drifted copies kept apart) -----

# A question's frame: its wh-word and auxiliaries, politeness, and the nouns and prepositions that
# only ask for a category or a relation (`what kind of ...`); a question's content is the rest.
FRAME = (
    FUNCTION_WORDS
    | AUXILIARIES
    | _words(
        "please tell me us be been being kind type sort many much after before during between since "
        "until while within without among across against along around behind below beside besides "
        "beyond despite except inside near off onto outside past per through throughout toward "
        "towards under upon via"
    )
)
# What a question, a goal part, opens with: an auxiliary or a wh-word.
ASKING_WORDS = AUXILIARIES | WH_WORDS
# What a short factual question opens with, to the offline classifier: fewer auxiliaries than
# ASKING_WORDS (no `will`, `would`, `should`, `has`, `have`, `had`, `shall`, `may`, `might`, `must`).
QUESTION_OPENERS = WH_WORDS | BE_FORMS | _words("do does did can could")
# A question's frame words that a search for its answer leaves out (stemmed by the caller); unlike
# QUESTION_OPENERS it has `many` and `much` and lacks `do`, `can`, `could`.
QUESTION_FRAME = WH_WORDS | BE_FORMS | _words("does did many much")
# Words of a goal's frame that no source needs to contain for the offline answer to be complete.
GOAL_FILLER = _words(
    "many much long current currently total number amount give tell find please answer question "
    "write report summary summarize summarise explain describe list show file files based"
)
# Determiners a coverage item's name may follow (`the billing service`, `its gateway`): fewer than
# DETERMINERS (no `my`, `your`, `his`, `her`, `some`, `these`, `those`), and no indefinite article:
# `an internal service` describes an item, it does not name one.
ITEM_DETERMINERS = _words("the its our their this that")
# What opens a sentence that may point back at the one before it: `the`, `such` or a demonstrative
# (`This necklace` does when the sentence before speaks of a necklace, or stands alone: `This is`).
POINTING_DETERMINERS = DEMONSTRATIVES | _words("the such")
# Words that open English sentences, capitalised only because they come first: a sentence's first
# word joins a name only when it is not one of them ("The", "Based", "Yes").
SENTENCE_OPENERS = (
    FUNCTION_WORDS
    | frozenset(NUMBER_WORDS)
    | _words(
        "according after again also although always another answer anyway around because before "
        "based both briefly but by consequently currently despite during each either finally first "
        "following further furthermore generally given hence however i in instead it its last later "
        "like likely many meanwhile moreover most much neither nevertheless next no none note notes "
        "now often once only other otherwise overall per perhaps please possibly question rather "
        "regarding second since so sources still such summary thanks then thereby therefore third "
        "though thus today together unfortunately unless until upon usually we well what whatever "
        "when whenever where whereas whether while yes yet you several source file files answer "
        "result results report conclusion total goal task half all both each every some few"
    )
)
# Capitalised words that name nothing: months, weekdays and `I`. The three readers of names had
# drifted apart on `I`'s contractions; each keeps what it had. A text's names: all of them.
NOT_NAMES = MONTHS | frozenset(WEEKDAYS) | I_FORMS
# The names of a text's units (its sentences, rows, turns): `I` and `I'm` only.
NOT_NAMES_IN_UNITS = MONTHS | frozenset(WEEKDAYS) | _words("i i'm")
# The names of a question: `I` alone.
NOT_NAMES_IN_QUESTIONS = MONTHS | frozenset(WEEKDAYS) | _words("i")

__all__ = [
    "ARTICLES",
    "ASKING_WORDS",
    "AUXILIARIES",
    "BE_FORMS",
    "CODE_WORDS",
    "COUNT_NOUNS",
    "DATE_NOUNS",
    "DEMONSTRATIVES",
    "DETERMINERS",
    "FRAME",
    "FUNCTION_WORDS",
    "GOAL_FILLER",
    "HOW_MEASURES",
    "INSTRUCTION_VERBS",
    "INTERJECTIONS",
    "ITEM_DETERMINERS",
    "I_FORMS",
    "MONTHS",
    "MONTH_ABBREVIATIONS",
    "MONTH_SPELLINGS",
    "NAME_JOINERS",
    "NEGATIONS",
    "NOT_NAMES",
    "NOT_NAMES_IN_QUESTIONS",
    "NOT_NAMES_IN_UNITS",
    "NUMBER_WORDS",
    "POINTING_DETERMINERS",
    "POSSESSIVE_DETERMINERS",
    "PREPOSITIONS",
    "QUANTIFIERS",
    "QUESTION_FRAME",
    "QUESTION_OPENERS",
    "RELATIVE_PRONOUNS",
    "RESEARCH_VERBS",
    "RESEARCH_WORDS",
    "RESTATING_LABELS",
    "RULE_PHRASING",
    "RULE_WORDS",
    "SCALE_WORDS",
    "SENTENCE_OPENERS",
    "TEMPORAL_NOUNS",
    "THIRD_PERSON_PRONOUNS",
    "WEEKDAYS",
    "WEEKDAY_ABBREVIATIONS",
    "WH_WORDS",
]
