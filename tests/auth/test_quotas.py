"""Conversions at once and calls per minute, per principal."""

from __future__ import annotations

import pytest

from metaserver.auth.quotas import WINDOW, CallRate, QuotaExceeded, check_conversions
from metaserver.auth.roles import LOCAL, Principal

ALICE = Principal("alice", "convert")
BOB = Principal("bob", "convert")


def test_a_third_conversion_is_refused() -> None:
    check_conversions(ALICE, 0, 2)
    check_conversions(ALICE, 1, 2)
    with pytest.raises(QuotaExceeded, match="alice already runs 2 conversions"):
        check_conversions(ALICE, 2, 2)
    check_conversions(ALICE, 5, 0)  # no limit
    check_conversions(LOCAL, 5, 2)  # the local user is alone


def test_the_call_rate_is_a_sliding_window_per_principal() -> None:
    rate = CallRate(3)
    for at in (0.0, 1.0, 2.0):
        rate.take(ALICE, now=at)
    with pytest.raises(QuotaExceeded) as refused:
        rate.take(ALICE, now=3.0)
    assert refused.value.retry_after == pytest.approx(WINDOW - 3.0)
    assert "auth.calls_per_minute" in str(refused.value)
    rate.take(BOB, now=3.0)  # another principal is not slowed
    rate.take(ALICE, now=WINDOW + 0.5)  # the first call left the window
    with pytest.raises(QuotaExceeded):
        rate.take(ALICE, 2, now=WINDOW + 1.5)  # a batch counts each call


def test_no_limit_and_the_local_user_are_never_refused() -> None:
    for _ in range(50):
        CallRate(0).take(ALICE, now=0.0)
        CallRate(1).take(LOCAL, now=0.0)
