"""network_needed: an example that failed only because the sandbox gives tools no network."""

from __future__ import annotations

import socket

import pytest

from metaserver.agents.validate.network import network_needed


def test_the_resolvers_own_words_for_an_address_that_does_not_resolve() -> None:
    # .invalid never resolves (RFC 2606): the error a download meets with no network
    with pytest.raises(OSError) as raised:
        socket.getaddrinfo("metaserver-test.invalid", 443)
    error = f"Error calling tool 'fetch': <urlopen error {raised.value}>"
    assert network_needed(error) is not None


@pytest.mark.parametrize(
    "error",
    [
        "URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
        "ConnectionError: HTTPSConnectionPool(host='x.org'): Failed to establish a new "
        "connection: [Errno 101] Network is unreachable",
        "socket.gaierror: [Errno 11001] getaddrinfo failed",
        "NameResolutionError: Failed to resolve 'data.org' ([Errno -2] ...)",
    ],
)
def test_an_unreachable_network_in_the_words_of_each_layer(error: str) -> None:
    assert network_needed(error) is not None


@pytest.mark.parametrize(
    "error",
    [
        # a local service that is not running: no word about the network as such
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "ValueError: unknown name 'resolution'",
        "KeyError: 'host'",
    ],
)
def test_other_errors_are_not_the_networks(error: str) -> None:
    assert network_needed(error) is None
