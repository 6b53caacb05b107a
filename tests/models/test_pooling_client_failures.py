"""The `openai-pooling` client against a misbehaving server on 127.0.0.1 (real sockets, `fake_pooling_server`):
every failure is one `ScorerError` line naming the URL and route, what happened and what to do, within its bounds
(a short read timeout, a capped reply); transient failures are tried again; a run killed while it waits on the
server lets go of its output lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import pool_dict, write_jsonl
from models.fake_pooling_server import FakePoolingServer, free_port
from prmkit.cli.main import main
from prmkit.models.scorer import ScorerError
from prmkit.models.scorer_spec import load_scorer_spec

STEPS = [["3 + 4 = 7", "so 7"], ["3 * 4 = 12", "wrong", "so 12"]]


@pytest.fixture
def serve():
    servers = []

    def start(mode: str, **kw: int) -> FakePoolingServer:
        servers.append(FakePoolingServer(mode, **kw))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _scores(url: str, options: str = "") -> list[list[float]]:
    return load_scorer_spec(f"openai-pooling:{url},sep_id=5{options}").score_steps("What is 3 + 4 ?", STEPS)


def test_a_good_server_scores_and_a_503_is_tried_again(serve):
    assert _scores(serve("ok").url) == [[0.7, 0.7], [0.7, 0.7, 0.7]]
    flaky = serve("503-once")
    assert _scores(flaky.url) == [[0.7, 0.7], [0.7, 0.7, 0.7]]
    assert flaky.requests.count("/pooling") == 3  # the load's check (503, then again), then the traces


@pytest.mark.parametrize(("mode", "options", "words"), [
    ("500", "", r"/pooling: HTTP 500 \('.*CUDA out of memory.*'\); check the server log"),
    ("no-data", "", r"/pooling: the reply has no 'data' list \(it holds: object, message\); is this vLLM's"),
    ("html", "", r"/pooling: the reply is an HTML page \('<html><head><title>502 Bad Gateway"),
    ("malformed", "", r"/pooling: the reply is not JSON \('\{\"data\": \[\{\"index\": 0"),
    ("huge", ",max_reply_mb=1", r"/pooling: a reply over the cap of 1 MB; lower the option max_batch"),
    ("huge-declared", "", r"/pooling: a reply of 400 MB, over the cap of 64 MB"),
    ("hang", ",timeout=0.5", r"/pooling: no complete reply within 0.5 s; .* raise the option timeout"),
    ("rows", "", r"/pooling: 0 rows for the 1 steps of trace 0; serve with the STEP pooler at the separator \[5\]"),
    ("nan", "", r"/pooling: a step score of trace 0 is nan \(not a finite number\)"),
    ("short-row", ",positive=1", r"/pooling: a row of 1 value\(s\), but the positive class is 1; set the option"),
    ("reset", ",retries=1", r"/pooling: the connection was cut \(\w+\) \(2 tries\)"),
])
def test_a_misbehaving_server_is_one_clear_line_naming_its_url(serve, mode, options, words):
    server = serve(mode)
    start = time.perf_counter()
    with pytest.raises(ScorerError, match=f"^openai-pooling {server.url}{words}") as caught:
        _scores(server.url, options)
    assert "\n" not in str(caught.value)
    assert time.perf_counter() - start < 10


def test_nothing_listening_is_connection_refused_at_once():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ScorerError, match=f"^openai-pooling {url}/tokenize: connection refused; is the server "
                                          f"running at {url}"):
        _scores(url)


def test_the_cli_prints_a_server_failure_as_one_error_line(serve, tmp_path, capsys):
    server = serve("500")
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", "What is 3 + 4 ?", "7", [(STEPS[0], "7", True)])])
    rc = main(["score", "--model", f"openai-pooling:{server.url},sep_id=5", "--input", pools,
               "--output", str(tmp_path / "s.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith(f"prmkit score: error: openai-pooling {server.url}/pooling: HTTP 500")
    assert not (tmp_path / "s.jsonl").exists()  # the scorer is checked before the output is opened


def _env() -> dict[str, str]:
    tests = str(Path(__file__).parents[1])
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), tests])),
                         "OMP_NUM_THREADS": "1"}


@pytest.mark.parametrize("sig", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow)])
def test_a_run_killed_while_the_server_hangs_leaves_no_lock(serve, tmp_path, sig):
    server = serve("hang")
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", "What is 3 + 4 ?", "7", [(STEPS[0], "7", True)])])
    out = tmp_path / "s.jsonl"
    args = [sys.executable, "-m", "prmkit", "score", "--quiet", "--input", pools, "--output", str(out), "--model"]
    # Ctrl-C reaches a CLI started from a shell that ignores SIGINT (a background job) only with its default back
    proc = subprocess.Popen([*args, f"openai-pooling:{server.url},sep_id=5"], env=_env(), stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lock = Path(f"{out.resolve()}.lock")
    deadline = time.time() + 300
    while "/pooling" not in server.requests and time.time() < deadline:  # waiting on the server, lock held
        time.sleep(0.1)
    assert lock.exists()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig and "Traceback" not in err and "stopped" in err, err
    assert not lock.exists()
    again = subprocess.run([*args, f"openai-pooling:{server.url},sep_id=5,timeout=0.5"], env=_env(),
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "no complete reply within 0.5 s" in again.stderr, again.stderr
