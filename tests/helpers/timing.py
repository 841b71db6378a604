"""Bounds on wall-clock time, each stated relative to the budget or deadline it tests.

A test that bounds how long something took is marked ``@pytest.mark.timing`` and bounds it by the
budget it gave plus :data:`SLACK_MS` (or, for what must be known without waiting, by a share of the
budget it must not wait for, :data:`AT_ONCE`). The slack is generous on purpose: the tests share two
cores with other work, so a timer fires late, a reply waits for another process's turn, a garbage
collection runs. A bound that fails by more than the slack is a budget the code did not keep.
``pytest -m "not timing"`` leaves these tests out on a machine too loaded for any bound.
"""

#: How late past its budget or deadline an answer may still arrive (a busy shared 2-core machine).
SLACK_MS = 1_500.0
#: The same when an LLM call was abandoned at the deadline: its stream is closed and the extractive
#: answer written in its place, on a machine the model server keeps busy.
LLM_SLACK_MS = 3_000.0
#: The same for the terminal client driven by Textual's Pilot, which polls the app for what it shows.
PILOT_SLACK_MS = 5_000.0
#: The same for a few lines of Python with no I/O between two readings of the clock (a unit test of a
#: budget): only a preemption or a garbage collection can delay them.
NO_IO_SLACK_MS = 100.0
#: How early a timer may fire (the event loop's clock and rounding).
EARLY_MS = 20.0
#: What is known at once (no responders, a refusal, an endpoint nobody listens on) is known in under this
#: share of the budget the code must not wait out.
AT_ONCE = 0.3
