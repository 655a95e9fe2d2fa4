"""Whether a message states a rule: the words of rules, outside its code."""

from __future__ import annotations

import pytest

from cairn.tasks.rule_stated import stated, states_a_rule


@pytest.mark.parametrize(
    "message",
    [
        "Make sure every file ends with a newline.",
        "Summarise the notes. Never cite Wikipedia.",
        "From now on, answer in French.",
    ],
)
def test_a_sentence_in_the_language_of_rules_states_one(message: str) -> None:
    assert states_a_rule(message)


@pytest.mark.parametrize(
    "message",
    [
        # HumanEval/10's goal: `make` was read from the function's name, and the model was asked
        "Write the Python function `make_palindrome` in solution.py, as the signature and docstring "
        "below specify, with pytest tests in test_solution.py:\n\n(code)",
        "Fix must_pass_all in checks.py.",  # an identifier outside backticks
        "Should we always cite the source?",  # a question
        "Summarise the notes.",
    ],
)
def test_code_names_and_questions_state_no_rule(message: str) -> None:
    assert not states_a_rule(message)


def test_a_rule_the_message_does_not_say_is_not_its_rule() -> None:
    assert stated("Never cite Wikipedia.", "Summarise the notes. Never cite Wikipedia.")
    assert not stated("Always write tests first.", "Summarise the notes. Never cite Wikipedia.")
