"""`CAIRN_` settings are `RunConfig`'s fields, declared once: every field a person sets for every
run is read from its variable, and the few that are not settings are set per run only."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import RunConfig, RunSettings, UsageError
from cairn.flows.settings import Settings

# One value for every setting, as its variable spells it, and as the run's configuration holds it.
EXAMPLES: dict[str, tuple[str, object]] = {
    "workspace": ("ws", None),  # resolved: checked on its own below
    "model": ("openai/gpt-4o-mini", "openai/gpt-4o-mini"),
    "embedding_model": ("hashing", "hashing"),
    "store": ("weaviate", "weaviate"),
    "weaviate_url": ("http://localhost:8080", "http://localhost:8080"),
    "weaviate_grpc_port": ("50052", 50052),
    "max_iterations": ("7", 7),
    "candidates": ("6", 6),
    "beam": ("2", 2),
    "read_batch": ("12", 12),
    "compress": ("batch", "batch"),
    "skip_compress": ("lint, run_tests", ("lint", "run_tests")),
    "context_tokens": ("4096", 4096),
    "validators_dir": ("/tmp/suites", "/tmp/suites"),
    "review": ("every", "every"),
    "model_timeout": ("12.5", 12.5),
    "model_max_tokens": ("800", 800),
    "model_attempts": ("5", 5),
    "model_response_format": ("json_object", "json_object"),
    "model_failures": ("4", 4),
    "model_request_fields": ("cache_prompt=false", ("cache_prompt=false",)),
    "max_usd": ("0.25", 0.25),
    "max_tokens": ("9000", 9000),
    "verifier": ("weights.json", "weights.json"),
}


def test_every_field_of_run_config_is_a_setting_or_set_per_run() -> None:
    assert set(EXAMPLES) == set(RunSettings.model_fields)
    per_run = set(RunConfig.model_fields) - set(RunSettings.model_fields)
    assert per_run == {"record", "model_probe", "accept_tampered", "on_uncertain"}
    assert set(Settings.model_fields) == set(RunSettings.model_fields)


def test_each_setting_is_read_from_its_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WEAVIATE_URL", raising=False)  # Weaviate's own names come first
    monkeypatch.delenv("WEAVIATE_GRPC_PORT", raising=False)
    for name, (text, _) in EXAMPLES.items():
        monkeypatch.setenv(f"CAIRN_{name.upper()}", text)
    config = Settings().run_config()
    assert config.workspace == str(tmp_path.resolve() / "ws")
    assert {name: getattr(config, name) for name in EXAMPLES if name != "workspace"} == {
        name: value for name, (_, value) in EXAMPLES.items() if name != "workspace"
    }


def test_a_run_only_field_is_no_setting_and_an_option_wins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CAIRN_ACCEPT_TAMPERED", "true")
    monkeypatch.setenv("CAIRN_ON_UNCERTAIN", "rerun")
    monkeypatch.setenv("CAIRN_MAX_ITERATIONS", "9")
    settings = Settings(workspace=tmp_path)
    assert settings.run_config().accept_tampered is False
    assert settings.run_config().on_uncertain == "ask"
    config = settings.run_config(max_iterations=3, on_uncertain="skip", model=None)
    assert (config.max_iterations, config.on_uncertain, config.model) == (3, "skip", "cairn/offline")


def test_unset_the_workspace_is_the_folder_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CAIRN_WORKSPACE", raising=False)
    assert Settings().run_config().workspace == str(tmp_path.resolve() / "cairn-workspace")


def test_weaviates_own_names_come_before_cairns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("WEAVIATE_URL", raising=False)
    monkeypatch.setenv("CAIRN_WEAVIATE_URL", "http://cairn:8080")
    monkeypatch.setenv("CAIRN_WEAVIATE_GRPC_PORT", "50052")
    assert Settings(workspace=tmp_path).run_config().weaviate_url == "http://cairn:8080"
    monkeypatch.setenv("WEAVIATE_URL", "http://weaviate:8080")
    monkeypatch.setenv("WEAVIATE_GRPC_PORT", "50053")
    config = Settings(workspace=tmp_path).run_config()
    assert (config.weaviate_url, config.weaviate_grpc_port) == ("http://weaviate:8080", 50053)


@pytest.mark.parametrize(("name", "text"), [("CAIRN_MAX_ITERATIONS", "0"), ("CAIRN_BEAM", "many")])
def test_a_refused_variable_is_one_usage_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, text: str
) -> None:
    monkeypatch.setenv(name, text)
    with pytest.raises(UsageError, match=name):
        Settings(workspace=tmp_path)
