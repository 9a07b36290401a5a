"""The rules core stays pure: no web, database, realtime or I/O imports anywhere under app/rules."""

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "app" / "rules"
FORBIDDEN = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "alembic",
    "asyncpg",
    "redis",
    "app.services",
    "app.web",
    "app.realtime",
    "app.db",
    "app.models",
    "httpx",
    "socket",
    "requests",
    "random",
    "os",
    "pathlib",
    "time",
)


def test_rules_core_imports_nothing_impure() -> None:
    offenders = []
    for path in RULES.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
                    offenders.append(f"{path.relative_to(RULES)} imports {name}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                offenders.append(f"{path.relative_to(RULES)} opens a file")
    assert offenders == []
