"""The long-task bench's parts (`bench/long_task.py`): a seeded service corpus with its exact truth,
the delivered ledger's parser and scorer, Cairn's own time per iteration read from a task's
history, and K HumanEval problems given as one coding task."""
