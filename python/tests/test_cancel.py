"""Cancelling a long solve: from another thread, from a signal handler, and by Ctrl-C. Each solve
here is MiniMalloc minimising challenging D, which runs for minutes (crate/tests/cancellation.rs);
a generous time limit keeps a broken cancel from hanging the suite (it would then end with
TIME_LIMIT, and the test fail). Latencies are not asserted: timed tests are no benchmarks."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import memplan
from conftest import CHALLENGING, checked

SAFETY = 300.0  # seconds: only reached when cancelling does not work


@pytest.fixture(scope="module")
def hard() -> memplan.Problem:
    return memplan.Problem.from_csv(CHALLENGING / "D.1048576.csv")


def test_cancel_from_another_thread(hard):
    token = memplan.CancelToken()
    timer = threading.Timer(0.5, token.cancel)
    timer.start()
    try:
        result = memplan.solve(hard, solver="minimalloc", time_limit=SAFETY, cancel=token)
    finally:
        timer.cancel()
    assert token.cancelled
    assert result.stopped is memplan.Stopped.CANCELLED
    checked(hard, result)


def test_other_threads_run_while_solving(hard):
    """The GIL is released: a Python thread keeps counting while the solve runs."""
    token = memplan.CancelToken()
    ticks = []

    def count():
        deadline = time.monotonic() + 0.6
        while time.monotonic() < deadline:
            ticks.append(1)
            time.sleep(0.01)
        token.cancel()

    counter = threading.Thread(target=count)
    counter.start()
    result = memplan.solve(hard, solver="minimalloc", time_limit=SAFETY, cancel=token)
    counter.join()
    assert result.stopped is memplan.Stopped.CANCELLED
    assert len(ticks) > 10


def test_a_signal_handler_cancels(hard):
    token = memplan.CancelToken()
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: token.cancel())
    sender = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGUSR1))
    sender.start()
    try:
        result = memplan.solve(hard, solver="minimalloc", time_limit=SAFETY, cancel=token)
    finally:
        sender.cancel()
        signal.signal(signal.SIGUSR1, previous)
    assert result.stopped is memplan.Stopped.CANCELLED
    checked(hard, result)


def test_ctrl_c_stops_the_solve_and_raises_keyboard_interrupt(hard):
    # A suite started in the background (`cmd &`) inherits SIGINT as ignored, and Python then
    # never raises KeyboardInterrupt: install Python's own handler, as an interactive session has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sender = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    sender.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            memplan.solve(hard, solver="minimalloc", time_limit=SAFETY)
    finally:
        sender.cancel()
        signal.signal(signal.SIGINT, previous)
    print(f"Ctrl-C returned after {time.monotonic() - started:.2f} s")


def test_cancel_stops_a_whole_batch(hard):
    token = memplan.CancelToken()
    timer = threading.Timer(0.5, token.cancel)
    timer.start()
    try:
        results = memplan.solve_many([hard, hard, hard], solver="minimalloc", time_limit=SAFETY, cancel=token)
    finally:
        timer.cancel()
    assert [r.stopped for r in results] == [memplan.Stopped.CANCELLED] * 3
    for result in results:
        checked(hard, result)
