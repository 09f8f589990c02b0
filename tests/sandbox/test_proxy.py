"""The index allow-list proxy admits the package index and nothing else."""

from __future__ import annotations

import socket

from metaserver.sandbox.proxy import AllowListProxy, index_hosts


def test_index_hosts_from_uv_variables() -> None:
    hosts = index_hosts({"UV_DEFAULT_INDEX": "https://pypi.org/simple", "UV_FIND_LINKS": "/w"})
    assert hosts == {("pypi.org", 443), ("files.pythonhosted.org", 443)}


def test_proxy_denies_hosts_off_the_list() -> None:
    proxy = AllowListProxy({("pypi.org", 443)}).start()
    try:
        for request in (
            b"CONNECT example.com:443 HTTP/1.1\r\n\r\n",
            b"CONNECT pypi.org:22 HTTP/1.1\r\n\r\n",
            b"GET http://127.0.0.1:8080/ HTTP/1.1\r\nHost: x\r\n\r\n",
        ):
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(str(proxy.socket_path))
                client.sendall(request)
                assert client.recv(100).startswith(b"HTTP/1.1 403")
        assert proxy.denied == ["example.com:443", "pypi.org:22", "127.0.0.1:8080"]
    finally:
        proxy.close()
