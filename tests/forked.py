"""`python -m MODULE ARGS` without the interpreter's start: forked from a process that has already
imported the app.

A server or CLI run started as a real command spends about a CPU-second and a half importing the
app before it does anything, and the suite starts a hundred of them. Here each pytest process
starts one forkserver (multiprocessing's, on first use): a freshly exec'd interpreter, so it has
none of the test process's threads, sockets or state, that imports the app, uvicorn and what the
CLI's commands load once (`PRELOAD`) and forks a child for each start. The child takes the
environment it is given (the whole of it), goes to the repository's root (or the given directory),
writes fds 1 and 2 to the given files (its stdin is /dev/null), and runs
the module as `python -m` does (`runpy`, `sys.argv` set): the same options parsed by the same code,
the same exit status (an uncaught exception prints its traceback and exits 1, `sys.exit("text")`
prints the text and exits 1, a signal ends it with minus the signal's number).

What the app reads at import, the forkserver read: `IMPORT_TIME_ENV` names each such read and
redoes it in the child from the child's own environment. Nothing else in the app reads the
environment at import (settings are read when `create_app` or a command runs; the cached
`get_settings` is cleared in the child regardless). The Prometheus counters made at import start
at zero in each child (the forkserver serves nothing; no multiprocess mode is set). The random
module reseeds itself in each forked child; the hash seed is the forkserver's, shared by its
children.

The children are the forkserver's, not the test process's: a test handles one through `Forked`,
which answers like `subprocess.Popen` (pid, poll, wait with TimeoutExpired, terminate, kill,
send_signal, returncode). Their CPU still counts as the test process's children's
(tests/cpu_meter.py reads the live tree under it, and the forkserver's reaped children's).

This module imports nothing of pytest: the forkserver imports it to find the child's entry.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# What the forkserver imports once: the app and what serving it and the CLI's commands load. Not
# app.cli itself: `python -m` runs it as __main__, and runpy warns of a module run that is already
# imported (it imports only app.config, which app.main has).
PRELOAD = [
    "app.main",
    "app.demo",
    "app.operations.archive",
    "app.operations.backup",
    "app.web.middleware.serving",
    "uvicorn.main",
    "uvicorn.lifespan.on",
    "uvicorn.loops.uvloop",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.httptools_impl",
    "redis.asyncio",
    "aiosqlite",
    "sqlalchemy.dialects.sqlite.aiosqlite",
    "encodings.idna",
    "tests.forked",
]


def _template_reload() -> None:
    from app.web.drawing import render

    render.env.auto_reload = os.environ.get("STARBOARD_TEMPLATE_RELOAD") == "1"


# The app's reads of the environment at import (grep app/ for module-level `os.environ`), redone
# in the child: a test that sets one for its server gets what a real start would give it.
IMPORT_TIME_ENV: dict[str, Callable[[], None]] = {"STARBOARD_TEMPLATE_RELOAD": _template_reload}


def _redirect(fd: int, path: str) -> None:
    target = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(target, fd)
    os.close(target)


def _child(module: str, args: list[str], env: dict[str, str], cwd: str, out: str, err: str) -> None:
    """The forked child: `python -m MODULE ARGS` in `env` and `cwd`, fds 1 and 2 to `out` and `err`."""
    from app.config import get_settings

    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdout.flush()
    sys.stderr.flush()
    _redirect(1, out)
    _redirect(2, err)
    for redo in IMPORT_TIME_ENV.values():
        redo()
    get_settings.cache_clear()
    sys.argv = [module, *args]  # runpy puts the module's file first, as `python -m` does
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()  # what the interpreter prints for an uncaught exception
        raise SystemExit(1) from None
    finally:
        atexit._run_exitfuncs()  # the interpreter's exit runs them; the forked child's does not
        sys.stdout.flush()
        sys.stderr.flush()


_context: Any = None


def _forkserver() -> Any:
    """This process's forkserver context (started by the first `Process.start`, then reused)."""
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        _context = context
    return _context


class Forked:
    """A forked `python -m` child, handled as a `subprocess.Popen`."""

    def __init__(self, process: Any, args: list[str]) -> None:
        self._process = process
        self.args = args
        self.pid: int = process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        code = self._process.exitcode
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # ended since the poll
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def start(
    module: str, args: list[str], env: dict[str, str], out: Path, err: Path | None = None, cwd: Path = ROOT
) -> Forked:
    """`python -m MODULE ARGS` with `env` in `cwd`, its stdout to `out` and its stderr to `err` (to
    `out` if not given), forked from this process's forkserver."""
    process = _forkserver().Process(
        target=_child,
        args=(module, list(args), dict(env), str(cwd), str(out), str(err or out)),
        daemon=True,  # one a test leaves running is stopped when the test process exits
    )
    # multiprocessing runs the starting process's main script again in each child (as __mp_main__),
    # for what a pickled target might need from it: here that is the pytest script, never needed.
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        process.start()
    finally:
        sys.modules["__main__"] = main
    return Forked(process, [sys.executable, "-m", module, *args])


def run_cli(
    args: list[str], env: dict[str, str], timeout: float | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([python, "-m", "app.cli", *args], env=env, cwd=cwd, capture_output=True,
    text=True, timeout=timeout)`, forked."""
    with tempfile.TemporaryDirectory(prefix="starboard-cli-") as tmp:
        out, err = Path(tmp, "stdout"), Path(tmp, "stderr")
        proc = start("app.cli", args, env, out, err, cwd)
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise subprocess.TimeoutExpired(
                proc.args, timeout or 0, out.read_text(), err.read_text()
            ) from None
        return subprocess.CompletedProcess(proc.args, code, out.read_text(), err.read_text())
