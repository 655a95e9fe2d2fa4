"""The files a task wrote (its file registry) and the code documentation read from them.

>>> ref = FileReference(file_id="f-1", path="a.py", file_type="code", size=3, checksum="0f", created_by="c")
>>> ref.path, ref.metadata.functions
('a.py', [])
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.core.frozen import Frozen, now

FileType = Literal["code", "documentation", "data", "config", "output"]


class FileMetadata(Frozen):
    language: str | None = None
    functions: list[str] = Field(default_factory=list)
    classes: list[str] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    purpose: str | None = None
    documentation: str | None = None


class FileReference(Frozen):
    """A file the agent wrote, in the task's file registry."""

    file_id: str
    path: str  # relative to the task's artifacts/
    file_type: FileType
    size: int
    checksum: str
    created_by: str  # call id
    created_at: float = Field(default_factory=now)
    modified_at: float = Field(default_factory=now)
    metadata: FileMetadata = FileMetadata()


class ParameterDoc(Frozen):
    name: str
    annotation: str = ""
    default: str | None = None


class FunctionDoc(Frozen):
    name: str
    parameters: list[ParameterDoc] = Field(default_factory=list)
    return_type: str = ""
    description: str = ""
    complexity: int = 1
    line_start: int = 0
    line_end: int = 0


class ClassDoc(Frozen):
    name: str
    methods: list[FunctionDoc] = Field(default_factory=list)
    bases: list[str] = Field(default_factory=list)
    description: str = ""
    line_start: int = 0
    line_end: int = 0


class CodeReference(Frozen):
    """Code documentation extracted from a code file."""

    code_id: str
    file_id: str
    language: str
    functions: list[FunctionDoc] = Field(default_factory=list)
    classes: list[ClassDoc] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    documentation: str = ""
    complexity: int = 1
