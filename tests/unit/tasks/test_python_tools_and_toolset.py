"""Tools beyond the built-ins, as plain functions: Python tools, the configuration, the toolset."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import McpServerConfig, PlannedCall, PythonToolConfig, ToolsConfig
from cairn.tasks.calls import run_tool_call
from cairn.tasks.tools import ToolContext
from cairn.tasks.tools.config import ToolFileError, load_file, parse_mcp_option, resolve_tools
from cairn.tasks.tools.python_tools import ToolDefinitionError, load_python_tool
from cairn.tasks.toolset import ToolConfigError, build, cap, toolset_for

FIXTURES = "tests.unit.tool_fixtures"


def python(*names: str, **extra: object) -> ToolsConfig:
    return ToolsConfig(python=[PythonToolConfig(function=f"{FIXTURES}:{n}") for n in names], **extra)  # type: ignore[arg-type]


def ctx(tmp_path: Path, tools: ToolsConfig) -> ToolContext:
    return ToolContext(task_id="t-1", artifacts=tmp_path, tools=tools)


def run(tmp_path: Path, tools: ToolsConfig, tool: str, **params: object) -> tuple[str, str]:
    output = run_tool_call(ctx(tmp_path, tools), PlannedCall(tool=tool, params=params))  # type: ignore[arg-type]
    return output.outcome, output.text


def test_a_typed_function_becomes_a_tool_with_its_schema_from_signature_and_docstring() -> None:
    area = load_python_tool(PythonToolConfig(function=f"{FIXTURES}:shape_area"))
    assert area.name == "area" and area.read_only and area.spec.description == "The area of a rectangle."
    props = area.input_schema["properties"]
    assert props["unit"] == {
        "default": "m",
        "description": "the unit of both sides",
        "title": "Unit",
        "type": "string",
    }
    assert area.input_schema["required"] == ["shape"]
    assert area.spec.params["shape"] == "any, required: its width and height"
    assert area.spec.input_schema == area.input_schema  # a nested object: the planner gets it all
    plain = load_python_tool(PythonToolConfig(function=f"{FIXTURES}:bump"))
    assert plain.spec.input_schema == {}  # flat: the params say it all


def test_arguments_are_validated_and_results_become_text(tmp_path: Path) -> None:
    tools = python("shape_area")
    assert run(tmp_path, tools, "area", shape={"width": 3, "height": 2}) == (
        "success",
        '{\n  "area": 6,\n  "unit": "m²"\n}',
    )
    outcome, text = run(tmp_path, tools, "area", shape={"width": "wide"})
    assert outcome == "error" and text.startswith("bad arguments for area: shape.width:")
    outcome, text = run(tmp_path, tools, "area", shape={"width": 1}, colour="red")
    assert outcome == "error" and "colour" in text


def test_the_context_is_passed_in_and_hidden_from_the_model(tmp_path: Path) -> None:
    tools = python("where_am_i")
    assert "ctx" not in toolset_for(tools).get("where_am_i").input_schema["properties"]  # type: ignore[union-attr]
    assert run(tmp_path, tools, "where_am_i", depth=2) == ("success", f"t-1 {tmp_path.name} 2")


def test_a_slow_python_tool_times_out(tmp_path: Path) -> None:
    outcome, text = run(tmp_path, python("sleepy"), "sleepy", seconds=2)
    assert outcome == "timeout" and "0.2 s" in text
    assert run(tmp_path, python("sleepy"), "sleepy", seconds=0) == ("success", "awake")


def test_a_plain_function_has_side_effects_unless_the_configuration_says_otherwise() -> None:
    assert not load_python_tool(PythonToolConfig(function=f"{FIXTURES}:plain")).read_only
    assert load_python_tool(PythonToolConfig(function=f"{FIXTURES}:plain", read_only=True)).read_only
    assert not load_python_tool(PythonToolConfig(function=f"{FIXTURES}:bump")).read_only


def test_an_import_that_fails_is_one_line() -> None:
    with pytest.raises(ToolDefinitionError, match="nowhere_module:f: cannot import it"):
        load_python_tool(PythonToolConfig(function="nowhere_module:f"))
    with pytest.raises(ToolDefinitionError, match="cannot import it"):
        load_python_tool(PythonToolConfig(function=f"{FIXTURES}:missing"))


def test_the_allow_list_hides_tools_and_refuses_their_calls(tmp_path: Path) -> None:
    tools = python("bump", allow=["read_*", "bump"])
    assert sorted(toolset_for(tools).names()) == ["bump", "read_file"]
    outcome, text = run(tmp_path, tools, "write_file", path="a.md", content="x")
    assert outcome == "error" and "is not allowed in this task" in text
    assert not (tmp_path / "a.md").exists()
    outcome, text = run(tmp_path, tools, "no_such_tool")
    assert outcome == "error" and "does not exist" in text
    with pytest.raises(ToolConfigError, match=r"'git\.\*' matches no tool"):
        toolset_for(ToolsConfig(allow=["git.*"]), strict=True)


def test_outputs_are_capped_and_names_must_be_unique() -> None:
    from cairn.tasks.tools.base import ToolOutput

    assert cap(ToolOutput(text="x" * 150), 100).text.endswith("[... 50 more characters cut]")
    clash = ToolsConfig(python=[PythonToolConfig(function=f"{FIXTURES}:bump")] * 2)
    with pytest.raises(ToolConfigError, match="two tools are named 'bump'"):
        build(clash, strict=True)


def test_a_tool_file_is_read_and_its_errors_are_located(tmp_path: Path) -> None:
    path = tmp_path / "cairn.toml"
    path.write_text(
        '[tools]\nallow = ["read_file", "time.*"]\ntimeout_s = 30\n'
        'python = ["mytools:count", { function = "mytools:note", read_only = true }]\n\n'
        '[tools.mcp.time]\ncommand = "mcp-server-time"\nenv = { TZ = "${MY_TZ}" }\n',
        encoding="utf-8",
    )
    config = load_file(path)
    assert [p.function for p in config.python] == ["mytools:count", "mytools:note"]
    assert config.python[0].path == str(tmp_path) and config.python[1].read_only is True
    assert config.mcp == [McpServerConfig(name="time", command="mcp-server-time", env={"TZ": "${MY_TZ}"})]
    assert config.timeout_s == 30 and config.allow == ["read_file", "time.*"]
    path.write_text('[tools.mcp.time]\nargs = ["x"]\n', encoding="utf-8")
    with pytest.raises(ToolFileError, match=r"cairn.toml: tools.mcp.time: .*give either a command or a url"):
        load_file(path)
    path.write_text("[tools]\ntimeout = 3\n", encoding="utf-8")
    with pytest.raises(ToolFileError, match=r"cairn.toml: tools.timeout: Extra inputs are not permitted"):
        load_file(path)
    path.write_text("[tools\n", encoding="utf-8")
    with pytest.raises(ToolFileError, match="invalid TOML"):
        load_file(path)


def test_mcp_options_add_to_the_workspace_file(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text(
        '[tools.mcp.time]\nurl = "http://127.0.0.1:1/mcp"\n', encoding="utf-8"
    )
    config = resolve_tools(tmp_path, None, ["git=mcp-server-git --repository 'a b'"], ["git.*"])
    assert [(s.name, s.transport) for s in config.mcp] == [("time", "http"), ("git", "stdio")]
    assert config.mcp[1].args == ["--repository", "a b"] and config.allow == ["git.*"]
    assert parse_mcp_option("time=other").command == "other"
    for bad in ("time", "=cmd", "a.b=cmd", "x='unclosed"):
        with pytest.raises(ToolFileError, match="--mcp"):
            parse_mcp_option(bad)
    with pytest.raises(ToolFileError, match="tools file not found"):
        resolve_tools(tmp_path, tmp_path / "nope.toml", [], None)


def test_a_server_that_cannot_start_fails_its_calls_not_the_task(tmp_path: Path) -> None:
    tools = ToolsConfig(mcp=[McpServerConfig(name="gone", command=str(tmp_path / "no-such-server"))])
    lenient = toolset_for(tools)
    assert lenient.problems and "did not start" in lenient.problems[0]
    outcome, text = run(tmp_path, tools, "gone.anything", x=1)
    assert outcome == "error" and text.startswith("MCP server 'gone' did not start")
    with pytest.raises(Exception, match="MCP server 'gone' did not start"):
        toolset_for(tools, strict=True)
