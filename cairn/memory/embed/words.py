"""Function words: in nearly every English text, so they say nothing about what a text is about.

The keyword index drops them from queries (`cairn.memory.store.sqlite_search`), and both embedders drop
them before embedding (`cairn.memory.embed.embeddings`, `cairn.memory.embed.static_embedding`).

>>> "the" in FUNCTION_WORDS, "tea" in FUNCTION_WORDS
(True, False)
"""

from __future__ import annotations

_FUNCTION_TEXT = (  # function words: frequent in every text, so they carry no topic
    "a an the and or but if then than so of to in on at for with by from into about over up down out "
    "is are was were be been being am has have had do does did will would can could should may might "
    "it its this that these those there here as not no all any some very just also too more most "
    "what which who whom whose when where why how i me my you your he him his she her we us our they "
    "them their"
)
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
