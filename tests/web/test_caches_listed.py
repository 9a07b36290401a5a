"""Caches in one place: every process-local cache in app/ is named in app/web/live/caches.py with
what invalidates it — a module that starts keeping something (a function under `functools.cache`
or `lru_cache`, a class or module-level table built on an OrderedDict or a weak dictionary) fails
here until the list names it, and every entry of the list names something that exists."""

from __future__ import annotations

import ast

from app.config import ROOT
from app.web.live.caches import CACHES

KEEPERS = {"OrderedDict", "WeakKeyDictionary", "WeakValueDictionary"}
DECORATORS = {"cache", "lru_cache"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _builds_keeper(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and _name(n) in KEEPERS for n in ast.walk(node))


def caches_in(tree: ast.Module) -> set[str]:
    """The names in a module that keep things: cached functions, classes and module-level tables."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(_name(d) in DECORATORS for d in node.decorator_list):
                found.add(node.name)
        elif isinstance(node, ast.ClassDef) and _builds_keeper(node):
            found.add(node.name)
    for node in tree.body:
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and node.value is not None
            and _builds_keeper(node.value)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
    return found


def test_every_cache_in_the_app_is_listed_with_what_invalidates_it() -> None:
    listed = {(c.module, c.name) for c in CACHES}
    found = set()
    for path in sorted((ROOT / "app").rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        found |= {(module, name) for name in caches_in(ast.parse(path.read_text(encoding="utf-8")))}
    assert found - listed == set(), "caches not listed in app/web/live/caches.py"
    for cache in CACHES:
        source = (ROOT / cache.module).read_text(encoding="utf-8")
        assert (
            f"def {cache.name}(" in source or f"class {cache.name}" in source or f"{cache.name}:" in source
        ), cache
        assert cache.holds and cache.invalidated_by and cache.bound


def test_the_scan_finds_each_kind_of_cache() -> None:
    tree = ast.parse(
        "from functools import cache, lru_cache\n"
        "import collections, weakref\n"
        "@cache\ndef a(): ...\n"
        "@lru_cache(maxsize=4)\ndef b(): ...\n"
        "class C:\n    def __init__(self):\n        self.kept = collections.OrderedDict()\n"
        "_d: dict = weakref.WeakKeyDictionary()\n"
        "def plain(): return {}\n"
    )
    assert caches_in(tree) == {"a", "b", "C", "_d"}
