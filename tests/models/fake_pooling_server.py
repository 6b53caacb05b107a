"""A vLLM-like /pooling server on 127.0.0.1 that answers well or misbehaves as told: real sockets, for the tests of
the `openai-pooling` client and the hostile-input battery.

/tokenize answers one id a byte of the text (so separator id 5 never occurs in text); /pooling answers, per `mode`:
`ok` (a row [0.3, 0.7] at each id 5), `500`, `no-data`, `html`, `malformed`, `huge` (MB of rows, no length given),
`huge-declared` (a Content-Length of 400 MB, nothing sent), `hang` (never answers), `rows` (a row too few), `nan`,
`short-row` (rows of one value), `503-once` (HTTP 503, then ok), `reset` (the connection closed unanswered),
`slow` (ok, 2 s late).

    python tests/models/fake_pooling_server.py MODE PORT [MB]   # prints "held" once serving
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SEP = 5
MODES = ("ok", "500", "no-data", "html", "malformed", "huge", "huge-declared", "hang", "rows", "nan", "short-row",
         "503-once", "reset", "slow")


def free_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pooling_reply(inputs: list[list[int]], row: list[float], drop: int = 0) -> dict:
    data = [{"index": k, "object": "pooling", "data": [row for i in ids if i == SEP][drop:]}
            for k, ids in enumerate(inputs)]
    return {"object": "list", "data": data}


class FakePoolingServer:
    def __init__(self, mode: str = "ok", port: int = 0, huge_mb: int = 8):
        assert mode in MODES, mode
        self.mode, self.huge_mb, self.requests = mode, huge_mb, []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(self.path)
                if self.path == "/tokenize":
                    return self.send(200, json.dumps({"tokens": list(body["prompt"].encode())}).encode())
                fake.pooling(self, body)

            def send(self, status: int, data: bytes, kind: str = "application/json", length: int | None = None):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data) if length is None else length))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def pooling(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        if self.mode == "503-once" and self.requests.count("/pooling") == 1:
            return h.send(503, b'{"error": "loading the model"}')
        if self.mode in FIXED:
            return h.send(*FIXED[self.mode])
        if self.mode in ACTIONS:
            return ACTIONS[self.mode](self, h)
        if self.mode == "slow":
            time.sleep(2)
        row = {"nan": [float("nan"), float("nan")], "short-row": [0.7]}.get(self.mode, [0.3, 0.7])
        return h.send(200, json.dumps(pooling_reply(body["input"], row, drop=int(self.mode == "rows"))).encode())

    def huge(self, h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.end_headers()  # no length: the reply ends when the connection closes
        chunk = b"[0.3, 0.7], " * 100_000
        try:
            for _ in range(self.huge_mb * 2**20 // len(chunk) + 1):
                h.wfile.write(chunk)
        except OSError:  # the client stopped reading
            pass
        h.close_connection = True

    def reset(self, h: BaseHTTPRequestHandler) -> None:
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        h.close_connection = True
        h.connection.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# mode -> a reply that does not depend on the request: (status, body, content type, declared length)
FIXED = {
    "500": (500, b'{"object": "error", "message": "CUDA out of memory", "code": 500}'),
    "no-data": (200, b'{"object": "error", "message": "The model does not support pooling"}'),
    "html": (200, b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", "text/html"),
    "malformed": (200, b'{"data": [{"index": 0, "data": [[0.3, '),
    "huge-declared": (200, b"", "application/json", 400 * 2**20),
}
ACTIONS = {"huge": FakePoolingServer.huge, "reset": FakePoolingServer.reset,
           "hang": lambda server, h: time.sleep(3600)}


if __name__ == "__main__":
    server = FakePoolingServer(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 8)
    print("held", flush=True)
    threading.Event().wait()
