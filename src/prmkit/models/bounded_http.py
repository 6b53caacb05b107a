"""One bounded HTTP call: POST JSON, read a JSON reply within timeouts and a size cap, transient failures retried;
any other failure is a one-line `ScorerError`."""

import http.client
import json
import re
import socket
import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from prmkit.models.scorer import ScorerError

__all__ = ["HttpLimits", "excerpt", "post_json"]

TRANSIENT = (502, 503, 504)  # a proxy or a server starting up, overloaded: worth another try
HINTS = {400: "the server refused the request: check the spec's options (model, request)",
         404: "no such route here: give the server's base URL, served with `vllm serve ... --runner pooling`",
         422: "the server refused the request's fields: check the spec's options (model, request)"}


@dataclass(frozen=True)
class HttpLimits:
    """How long and how much one call may take (options `connect_timeout`, `timeout`, `max_reply_mb`, `retries`)."""

    connect: float = 10.0  # seconds to open the connection
    read: float = 60.0  # seconds for the whole reply, from the request sent
    max_mb: float = 64.0  # the largest reply read; a larger one is refused unread
    retries: int = 2  # further tries after a transient failure, 1 s then 2 s apart (4 s at most each)


class _Transient(Exception):
    pass


def excerpt(data: bytes | str, limit: int = 120) -> str:
    """The start of a reply as one short quoted line (whitespace collapsed)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = re.sub(r"\s+", " ", text).strip()
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def post_json(url: str, body: dict[str, Any], limits: HttpLimits, who: str) -> Any:
    """The decoded JSON reply of POST `body` to `url`; `who` names the caller in errors."""
    data = json.dumps(body).encode("utf-8")
    for attempt in range(limits.retries + 1):
        try:
            raw = _post_once(url, data, limits)
            break
        except _Transient as e:
            if attempt == limits.retries:
                tries = f" ({attempt + 1} tries)" if attempt else ""
                raise ScorerError(f"{who} {url}: {e}{tries}; check the server's log, or try again when it is "
                                  "up") from None
            time.sleep(min(2.0**attempt, 4.0))
        except (TimeoutError, OSError, http.client.HTTPException, ValueError) as e:
            raise ScorerError(f"{who} {url}: {_failure(e, url, limits)}") from None
    try:
        return json.loads(raw)
    except ValueError:
        what = "an HTML page" if raw.lstrip()[:1] == b"<" else "not JSON"
        raise ScorerError(f"{who} {url}: the reply is {what} ({excerpt(raw)}); is the URL the vLLM server itself "
                          "(not a proxy's or a web page)?") from None


def _post_once(url: str, data: bytes, limits: HttpLimits) -> bytes:
    """One POST; the reply's bytes (HTTP 2xx). Raises _Transient, TimeoutError (`args[0]` 'connect' or 'read'),
    ValueError (an HTTP error, a reply over the cap) or OSError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"'{url}' is not an http(s) URL")
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    with closing(kind(parts.hostname, parts.port, timeout=limits.connect)) as conn:
        try:
            conn.connect()
        except TimeoutError:
            raise TimeoutError("connect") from None
        deadline, sock = time.monotonic() + limits.read, conn.sock  # conn lets go of it once a reply will close
        try:
            sock.settimeout(limits.read)
            conn.request("POST", parts.path or "/", data, {"Content-Type": "application/json",
                                                           "Accept": "application/json"})
            reply = conn.getresponse()
            raw = _read_capped(reply, deadline, sock, int(limits.max_mb * 2**20))
        except TimeoutError:
            raise TimeoutError("read") from None
        except (ConnectionResetError, BrokenPipeError, http.client.IncompleteRead) as e:
            raise _Transient(f"the connection was cut ({type(e).__name__})") from None
        if reply.status in TRANSIENT:
            raise _Transient(f"HTTP {reply.status} ({excerpt(raw)})")
        if not 200 <= reply.status < 300:
            raise ValueError(f"HTTP {reply.status} ({excerpt(raw)}); {HINTS.get(reply.status, 'check the server log')}")
        return raw


def _read_capped(reply: http.client.HTTPResponse, deadline: float, sock: socket.socket, cap: int) -> bytes:
    """The reply's body, read before `deadline` and refused past `cap` bytes (at its Content-Length, when it
    has one, before a byte of it is read)."""
    length = reply.getheader("Content-Length")
    if length and length.isdigit() and int(length) > cap:
        raise ValueError(f"a reply of {int(length) / 2**20:.0f} MB, over the cap of {cap / 2**20:.0f} MB")
    chunks, size = [], 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        if not (chunk := reply.read1(1 << 16)):
            return b"".join(chunks)
        size += len(chunk)
        if size > cap:
            raise ValueError(f"a reply over the cap of {cap / 2**20:.0f} MB")
        chunks.append(chunk)


def _failure(e: BaseException, url: str, limits: HttpLimits) -> str:
    """What happened and what to do, for a failure that is not tried again."""
    if isinstance(e, ConnectionRefusedError):
        return (f"connection refused; is the server running at {url.rsplit('/', 1)[0]} (`vllm serve MODEL --runner "
                "pooling`)?")
    if isinstance(e, TimeoutError) and e.args == ("connect",):
        return f"no connection within {limits.connect:g} s; check the host and port (option connect_timeout)"
    if isinstance(e, TimeoutError):
        return (f"no complete reply within {limits.read:g} s; the server is stuck or slow: check it, or raise the "
                "option timeout (seconds) or lower max_batch")
    if isinstance(e, ValueError) and "over the cap" in str(e):
        return (f"{e}; lower the option max_batch, serve with the STEP pooler (a row per step, not per token), or "
                "raise max_reply_mb")
    if isinstance(e, ValueError):
        return str(e)
    return f"cannot connect ({getattr(e, 'strerror', None) or e}); check the host and port"
