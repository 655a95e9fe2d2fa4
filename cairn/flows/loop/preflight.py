"""Before anything is created or Prefect starts: can the model be used, and what does its server take?

An unknown model string, a cassette that is not there, or a model server that does not answer is
refused here in one line that names the model and where it was sought, and nothing is created.
A real model costs one small request (`cairn.tasks.model.probe`): it learns the reply format the
server takes and how fast it answers, which the run's model client then uses (the format, when
`CAIRN_MODEL_RESPONSE_FORMAT` is `auto`; the speed scales the timeouts, when `CAIRN_MODEL_TIMEOUT`
is unset). The run records it in the task's history (`ModelProbed`).

>>> preflight(RunConfig(workspace="ws", model="no-such-provider/x"))
Traceback (most recent call last):
cairn.tasks.model.failures.ModelUnavailable: unknown model 'no-such-provider/x': ...
"""

from __future__ import annotations

from cairn.core import ModelProbed, RunConfig
from cairn.flows.steps.session import Session
from cairn.tasks.calls import model_client
from cairn.tasks.model.capabilities import check_model, replay_of, served
from cairn.tasks.model.cassette import load_cassette
from cairn.tasks.model.probe import probe


def preflight(config: RunConfig) -> RunConfig:
    """`config` with what the model's server takes; raises `ModelUnavailable` (or
    `CassetteError`) unless the model can be called."""
    if (replay := replay_of(config.model)) is not None:
        load_cassette(replay[0])
        return config
    check_model(config.model)
    return learnt(config, always=True)


def learnt(config: RunConfig, always: bool = False) -> RunConfig:
    """`config` with a probe of the model's server, unless it holds one for this model, the model
    has no server, or (not `always`) the format and the timeout were both set by hand."""
    known = config.model_probe is not None and config.model_probe.model == config.model
    by_hand = config.model_response_format != "auto" and config.model_timeout is not None
    if known or not served(config.model) or (by_hand and not always):
        return config
    unprobed = config.model_copy(update={"model_probe": None})
    return config.model_copy(update={"model_probe": probe(model_client(unprobed))})


def record_probe(session: Session, config: RunConfig) -> None:
    """The run's probe in the task's history, once per probe (a worker's retry reuses the run's)."""
    found = config.model_probe
    if found is not None and found.model == config.model and found != session.state.model_probe:
        session.recorder.record(ModelProbed(probe=found))
