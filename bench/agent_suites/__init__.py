"""The suites of `bench/agent.py`: the house tasks and two external benchmarks, each with its grader."""
