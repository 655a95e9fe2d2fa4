"""What a task's iterations run: the model client and its messages, tools, grounding, validation.

Plain functions, no Prefect: the Prefect tasks that wrap the calls are `cairn.flows.prefect.tasks`.
The package keeps the name of Cairn 0.1's top-level `tasks` (`cairn._legacy`); everywhere else a
task is a Cairn task, one goal run to its end.
"""
