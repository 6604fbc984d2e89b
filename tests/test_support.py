"""The shared test helpers' own rules (tests/support/): a wait polls, lets through only the
errors it was told to expect, and on timeout says what it last saw."""

from __future__ import annotations

import time

import pytest
from support.wait import wait_for


def test_a_wait_returns_the_first_value_good_enough() -> None:
    values = iter([1, 2, 3, 4])
    assert wait_for(values.__next__, "3", 5, until=lambda n: n >= 3, interval=0) == 3


def test_an_unexpected_error_is_raised_at_once_not_waited_out() -> None:
    def typo() -> int:
        raise NameError("nmae")

    started = time.monotonic()
    with pytest.raises(NameError):
        wait_for(typo, "anything", 60, tolerate=(ConnectionError,))
    assert time.monotonic() - started < 5


def test_on_timeout_the_wait_says_what_it_last_saw() -> None:
    calls = iter([5, ConnectionError("node restarting"), 7] + [ConnectionError("down")] * 1000)

    def probe() -> int:
        got = next(calls)
        if isinstance(got, Exception):
            raise got
        return got

    with pytest.raises(AssertionError) as failed:
        wait_for(probe, "a count of 10", 0.3, until=lambda n: n >= 10, interval=0.01,
                 tolerate=(ConnectionError,), context=lambda: "the logs")
    message = str(failed.value)
    assert "waiting for a count of 10" in message and "last seen: 7" in message
    assert "last error: ConnectionError('down')" in message and message.endswith("the logs")
