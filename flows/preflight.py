"""Before anything is created or Prefect starts: can the model be used at all?

An unknown model string, a cassette that is not there, or a model server that does not answer is
refused here in one line that names the model and where it was sought, and nothing is created.
Costs one tiny request (`ModelClient.ping`), not recorded: there is no task yet.

>>> preflight(RunConfig(workspace="ws", model="no-such-provider/x"))
Traceback (most recent call last):
cairn.tasks.llm.ModelUnavailable: unknown model 'no-such-provider/x': ...
"""

from __future__ import annotations

from pathlib import Path

from cairn.tasks.calls import model_client
from cairn.tasks.cassette import load_cassette
from cairn.tasks.deps import RunConfig
from cairn.tasks.llm import REPLAY_PREFIX, check_model


def preflight(config: RunConfig) -> None:
    """Raise `ModelUnavailable` (or `CassetteError`) unless the model can be called."""
    if config.model.startswith(REPLAY_PREFIX):
        load_cassette(Path(config.model[len(REPLAY_PREFIX) :].partition("?match=")[0]))
        return
    check_model(config.model)
    model_client(config).ping()
