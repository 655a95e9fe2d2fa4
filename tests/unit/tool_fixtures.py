"""Python tools for the unit tests, imported by `module:function` as a user's would be."""

from __future__ import annotations

import time

from pydantic import BaseModel

from cairn.tasks.tools import ToolContext, tool

CALLS: list[str] = []  # every real execution of `bump`, in this process


@tool
def bump(name: str) -> str:
    """Count one execution (a side effect the tests can see).

    Args:
        name: what to count
    """
    CALLS.append(name)
    return f"bumped {name}"


STAMPS: list[str] = []  # every real execution of `stamp`


@tool(idempotent=True)
def stamp(name: str) -> str:
    """Set a named stamp: setting it twice leaves what setting it once does.

    Args:
        name: the stamp
    """
    STAMPS.append(name)
    return f"stamped {name}"


class Shape(BaseModel):
    width: int
    height: int = 1


@tool(read_only=True, name="area")
def shape_area(shape: Shape, unit: str = "m") -> dict[str, object]:
    """The area of a rectangle.

    Args:
        shape: its width and height
        unit: the unit of both sides
    """
    return {"area": shape.width * shape.height, "unit": f"{unit}²"}


@tool(read_only=True)
def where_am_i(ctx: ToolContext, depth: int = 0) -> str:
    """The task's artifacts folder (the context is passed in, not shown to the model)."""
    return f"{ctx.task_id} {ctx.artifacts.name} {depth}"


@tool(read_only=True, timeout_s=0.2)
def sleepy(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "awake"


def plain(text: str) -> str:
    """No decorator: a plain function is a tool with side effects."""
    return text[::-1]
