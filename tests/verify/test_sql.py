"""SQL validator on a real sqlite file: execution accuracy, and SQL that writes or runs forever."""

from __future__ import annotations

import sqlite3
import time

import pytest

from prmkit.data.records import Problem
from prmkit.domains import verify_answer


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
        "INSERT INTO item(name, price) VALUES ('pen', 1.5), ('ink', 3.0), ('pad', 3.0), ('cap', 0.5);"
    )
    conn.commit()
    conn.close()
    return path


def _problem(db, gold, timeout=1.0):
    return Problem("q", "?", gold, domain="sql", meta={"db_path": str(db), "timeout": timeout})


def _rows(db):
    return sqlite3.connect(db).execute("SELECT id, name, price FROM item ORDER BY id").fetchall()


@pytest.mark.parametrize(
    ("gold", "pred", "ok"),
    [
        (
            "SELECT name FROM item WHERE price = 3.0",
            "SELECT name FROM item WHERE price > 2 ORDER BY name DESC",
            True,
        ),
        (
            "SELECT name FROM item WHERE price = 3.0 ORDER BY name",
            "SELECT name FROM item WHERE price = 3 ORDER BY name DESC",
            False,
        ),
        ("SELECT name FROM item ORDER BY id", "SELECT name FROM item ORDER BY id;", True),
        ("SELECT price FROM item", "SELECT DISTINCT price FROM item", False),  # multiset, not set
        ("SELECT count(*) FROM item", "SELECT 4", True),
        ("SELECT count(*) FROM item", "SELECT 5", False),
        ("SELECT name FROM item", "SELECT nme FROM item", False),
        # ORDER BY inside a subquery or a string does not make the outer result ordered
        ("SELECT name FROM (SELECT name FROM item ORDER BY price) WHERE name != 'order by'",
         "SELECT name FROM item ORDER BY name DESC", True),
        ("SELECT count(*) FROM item", "SELECT count(*) FROM item; -- counted", True),
        ("SELECT count(*) FROM item", "SELECT count(*) FROM item; /* done */", True),
    ],
)
def test_execution_accuracy(db, gold, pred, ok):
    assert verify_answer(_problem(db, gold), pred).ok is ok


HOSTILE = {
    "drop": "DROP TABLE item",
    "delete": "DELETE FROM item",
    "insert": "INSERT INTO item(name, price) VALUES ('x', 1)",
    "update": "UPDATE item SET price = 0",
    "second_statement": "SELECT 1; DROP TABLE item",
    "attach": "ATTACH DATABASE '{other}' AS o",
    "pragma": "PRAGMA journal_mode = DELETE",
    "create": "CREATE TABLE x(a)",
    "recursive_forever": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    "cross_join": "SELECT count(*) FROM item a, item b, item c, item d, item e, item f, item g, item h, "
    "item i, item j, item k, item l, item m, item n, item o, item p",
    "empty": "   ",
    "huge_blob": "SELECT length(randomblob(1000000000))",
    "comment_hides_second": "SELECT 1; /* x */ DROP TABLE item",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_sql_fails_in_time_and_changes_nothing(db, tmp_path, name):
    before = _rows(db)
    other = tmp_path / "other.db"
    start = time.monotonic()
    verdict = verify_answer(
        _problem(db, "SELECT count(*) FROM item", timeout=1.0), HOSTILE[name].format(other=other)
    )
    assert not verdict.ok and verdict.reason, verdict
    assert time.monotonic() - start < 3
    assert _rows(db) == before
    assert not other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop.db"]


def test_generation_prompt_shows_the_database_schema(db):
    from prmkit.generate.prompts import build_prompt

    prompt = build_prompt(Problem("q", "How many items?", "SELECT count(*) FROM item", domain="sql",
                                  meta={"db_path": str(db)}))
    assert "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);\n### Question\nHow many items?" in prompt
