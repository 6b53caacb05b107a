"""SQL validator (MCNIG paper sec 3.1): execution accuracy on sqlite (BIRD's metric), the database read-only, one
statement, time and rows limited (docs/generate_verify.md)."""

import re
import sqlite3
import time
from collections import Counter
from contextlib import closing
from pathlib import Path

from prmkit.data.records import Problem
from prmkit.verify.base import Verdict

__all__ = ["ordered", "read_schema", "run_query", "verify_sql"]

_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
_ORDER_BY = re.compile(r"\border\s+by\b", re.I)
_LITERAL_OR_COMMENT = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.S)
_PARENS = re.compile(r"\([^()]*\)")
_MAX_VALUE_BYTES = 10_000_000  # SQLITE_LIMIT_LENGTH: no string or blob (e.g. randomblob(1e9)) beyond this


def ordered(sql: str) -> bool:
    """Whether the query's own result is ordered: an ORDER BY at the top level, not inside a subquery, a window
    function, a string or a comment."""
    text = _LITERAL_OR_COMMENT.sub(" ", sql)
    while (shorter := _PARENS.sub(" ", text)) != text:
        text = shorter
    return bool(_ORDER_BY.search(text))


def _single_statement(sql: str) -> str:
    """The query without its trailing `;`; ValueError when it is empty or holds a second statement."""
    sql = sql.strip()
    for k, c in enumerate(sql):
        if c != ";" or not sqlite3.complete_statement(sql[: k + 1]):
            continue
        if _LITERAL_OR_COMMENT.sub("", sql[k + 1 :]).strip(" \t\r\n;"):  # more than a comment follows
            raise ValueError("more than one statement")
    sql = sql.rstrip("; \t\r\n")
    if not sql:
        raise ValueError("empty query")
    return sql


def _connect(db_path: str | Path) -> sqlite3.Connection:
    """A read-only connection (`mode=ro` URI) whose values are capped at `_MAX_VALUE_BYTES`."""
    uri = f"{Path(db_path).resolve().as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=1.0, check_same_thread=False)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _MAX_VALUE_BYTES)
    return conn


def read_schema(db_path: str | Path) -> str:
    """The CREATE statements of a database's tables and views, one per line (for the generation prompt)."""
    with closing(_connect(db_path)) as conn:
        rows = conn.execute("SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL "
                            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid").fetchall()
    return "\n".join(" ".join(sql.split()) + ";" for (sql,) in rows)


def run_query(db_path: str | Path, sql: str, timeout: float = 5.0, max_rows: int = 100_000) -> list[tuple]:
    """Rows of one read-only query; raises ValueError (bad input) or sqlite3.Error (failure, timeout)."""
    sql = _single_statement(sql)
    with closing(_connect(db_path)) as conn:
        deadline = time.monotonic() + timeout
        conn.set_authorizer(lambda action, *_: sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY)
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
        try:
            rows = conn.execute(sql).fetchmany(max_rows + 1)
        except sqlite3.Warning as e:  # Python 3.11 raises Warning for a second statement
            raise ValueError(str(e)) from None
        except sqlite3.OperationalError as e:
            if time.monotonic() > deadline:
                raise sqlite3.OperationalError(f"timed out after {timeout:g}s") from None
            raise sqlite3.OperationalError(str(e)) from None
    if len(rows) > max_rows:
        raise ValueError(f"more than {max_rows} rows")
    return [tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows]


def verify_sql(problem: Problem, answer: str) -> Verdict:
    """V_q(y) by execution accuracy; a failing gold query is reported as such (not the candidate's fault)."""
    db, timeout = problem.meta.get("db_path"), float(problem.meta.get("timeout", 5.0))
    if not db or not Path(db).is_file():
        return Verdict(False, f"database not found: {db!r}")
    try:
        gold = run_query(db, problem.answer, timeout)
    except (ValueError, sqlite3.Error) as e:
        return Verdict(False, f"gold query failed: {e}")
    try:
        pred = run_query(db, answer, timeout)
    except (ValueError, sqlite3.Error) as e:
        return Verdict(False, f"candidate query failed: {e}"[:200])
    same = pred == gold if ordered(problem.answer) else Counter(pred) == Counter(gold)
    return Verdict(same, "same result" if same else f"different result ({len(pred)} vs {len(gold)} rows)")
