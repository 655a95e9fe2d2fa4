"""The files a model writes for a coding task arrive as files, not as Markdown about files."""

from __future__ import annotations

import pytest

from cairn.flows.writing import unfenced

FENCED = '```python\n"""URL slugs."""\n\nimport re\n```\n'  # as Qwen2.5-Coder-1.5B wrote slug.py


@pytest.mark.parametrize(
    ("path", "content", "written"),
    [
        ("slug.py", FENCED, '"""URL slugs."""\n\nimport re\n'),
        ("slug.py", "```\nx = 1\n```", "x = 1\n"),
        ("slug.py", "x = 1\n", "x = 1\n"),
        ("notes.md", "```\nx = 1\n```", "```\nx = 1\n```"),  # Markdown may be a code block
        ("two.py", "```py\na = 1\n```\nb\n```py\nc = 2\n```", "```py\na = 1\n```\nb\n```py\nc = 2\n```"),
    ],
)
def test_a_code_file_wrapped_in_one_fence_is_unwrapped(path: str, content: str, written: str) -> None:
    assert unfenced(path, content) == written
