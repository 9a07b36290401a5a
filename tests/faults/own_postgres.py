"""A throwaway PostgreSQL cluster of our own for fault tests that stop the database server itself
(the shared one is never restarted): initdb into a temporary directory, served on a free port,
restarted with pg_ctl. Run as the `postgres` user when the tests run as root (initdb refuses root)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time

from tests.faults.proxy import free_port


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(f"no {name} under /usr/lib/postgresql/*/bin")
    return found[-1]


class OwnPostgres:
    def __init__(self) -> None:
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="starboard-pg-")
        self.data = os.path.join(self.dir, "data")
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run(
            _bin("initdb"), "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"
        )
        self.start()

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def _run(self, *argv: str) -> None:
        subprocess.run([*self.as_user, *argv], check=True, capture_output=True, timeout=60)

    def _ctl(self, *argv: str) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40"
        )
        self._run(_bin("pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"), "-o", options, *argv)

    def start(self) -> None:
        self._ctl("-w", "start")

    def restart(self) -> float:
        """Stop (fast: open sessions are ended, as an operator's restart does) and start again;
        the seconds it was away."""
        began = time.monotonic()
        self._ctl("-w", "-m", "fast", "restart")
        return time.monotonic() - began

    def stop(self) -> None:
        try:
            self._ctl("-w", "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
