"""deploy/nginx.conf run for real in front of app processes on this machine: the tests that prove
what the proxy does (no token in its log, forwarded addresses set, /metrics kept internal, a
rolling restart) run the file the deployment ships, with only its addresses and paths changed."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import ROOT, free_port, serving

UPSTREAM = "    server app:8000 max_fails=2 fail_timeout=10s;\n"


@contextmanager
def deploy_nginx(nginx: str, upstream_ports: list[int], tmp_path: Path) -> Iterator[str]:
    """nginx with deploy/nginx.conf in front of the app processes on these ports; its base URL.
    Its access log is `tmp_path / "access.log"`; it is stopped on leaving."""
    port = free_port()
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert UPSTREAM in conf, "deploy/nginx.conf's upstream line changed: update tests/nginx.py"
    conf = conf.replace("resolver 127.0.0.11 valid=10s;", "")
    conf = conf.replace(
        UPSTREAM, "".join(UPSTREAM.replace("app:8000", f"127.0.0.1:{p}") for p in upstream_ports)
    )
    conf = conf.replace("listen 8000;", f"listen 127.0.0.1:{port};")
    conf = conf.replace("/var/log/nginx/access.log", str(tmp_path / "access.log"))
    (tmp_path / "site.conf").write_text(conf)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\ndaemon off;\n"
        "events {}\nhttp {\n"
        f"  client_body_temp_path {tmp_path}; proxy_temp_path {tmp_path};\n"
        f"  include {tmp_path / 'site.conf'};\n}}\n"
    )
    proc = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")])
    try:
        base = f"http://127.0.0.1:{port}"
        assert serving(base), (tmp_path / "error.log").read_text()
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)
