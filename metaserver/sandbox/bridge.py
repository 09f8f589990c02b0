"""Inside an install's sandbox: 127.0.0.1:PORT -> the host's index proxy on a unix socket.

Usage: ``python -I -S bridge.py SOCKET PORT -- ARGV...``. It listens first, then forks: the
child serves the bridge and dies with its parent (``PR_SET_PDEATHSIG``), the parent execs
ARGV, which finds ``HTTPS_PROXY=http://127.0.0.1:PORT`` in its environment. The sandbox has
no other network, so the proxy's allow-list is the only way out.

Standard library only: it runs with whatever interpreter the sandbox can see.
"""

import ctypes
import os
import signal
import socket
import sys
import threading


def pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()


def main(argv: list[str]) -> None:
    split = argv.index("--")
    (path, port), command = argv[:split], argv[split + 1 :]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    parent = os.getpid()
    if os.fork() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: gone when the command exits
        if os.getppid() != parent:
            os._exit(0)
        for fd in (0, 1):
            os.dup2(os.open(os.devnull, os.O_RDWR), fd)
        serve(listener, path)
        os._exit(0)
    listener.close()
    os.execvp(command[0], command)  # noqa: S606 - exec, not a shell


if __name__ == "__main__":
    main(sys.argv[1:])
