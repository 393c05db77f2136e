"""Served by uvicorn (ASGI), a static file is sent a block at a time without a warning, and
any Python warning is a JSON line of the log: whitenoise's synchronous file answers made
Django's ASGI handler warn ("StreamingHttpResponse must consume synchronous iterators") in two
plain-text lines on stderr, nine times in a walkthrough, and read each file whole first."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from incidentlib.asgi_handler import OneHopASGIHandler
from incidentlib.static_files import ASGI_BLOCK_SIZE
from tests.reliability.asgi_exchange import asgi_messages

# A static answer reads no row, but closing one sends request_finished, whose receiver
# checks the connections an earlier test left open.
pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"


def static_file(name: str) -> Path:
    """The file the static finders serve for `name`."""
    found = finders.find(name)
    assert isinstance(found, str), name
    return Path(found)


def asgi_get(path: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> tuple[int, list[bytes], list[str]]:
    """One GET through the served handler: (status, each body message's bytes, the text of
    every warning raised while answering)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        sent = asgi_messages(OneHopASGIHandler(), path, headers=headers)
    bodies = [m["body"] for m in sent[1:] if m.get("body")]
    return sent[0]["status"], bodies, [str(w.message) for w in seen]


def test_a_static_file_is_sent_a_block_at_a_time_without_a_warning():
    content = static_file(BUNDLE).read_bytes()
    status, bodies, warned = asgi_get(f"/static/{BUNDLE}")
    assert (status, warned) == (200, [])
    assert b"".join(bodies) == content
    # 1,586,002 bytes: 25 blocks of 64 KiB, each sent as it is read (Django's handler sent
    # the file whole, once read to its end).
    assert len(bodies) == math.ceil(len(content) / ASGI_BLOCK_SIZE) == 25
    assert [len(b) for b in bodies[:-1]] == [ASGI_BLOCK_SIZE] * 24


def test_a_304_for_a_static_file_raises_no_warning_either():
    status, _bodies, warned = asgi_get("/static/css/site.css")
    assert (status, warned) == (200, [])
    first = Client().get("/static/css/site.css")
    first.close()  # its file, not read here
    etag = first["ETag"]
    status, bodies, warned = asgi_get("/static/css/site.css", ((b"if-none-match", etag.encode()),))
    assert (status, bodies, warned) == (304, [], [])


def test_under_wsgi_a_static_file_is_whitenoises_answer_unchanged():
    response: Any = Client().get(
        "/static/css/site.css"
    )  # a streamed answer (the stubs know only HttpResponse)
    assert response.status_code == 200 and response.streaming and not response.is_async
    assert b"".join(response.streaming_content) == static_file("css/site.css").read_bytes()
    response.close()


def test_a_warning_is_one_json_line_of_the_log():
    said = "StreamingHttpResponse must consume synchronous iterators"
    program = f"import django, warnings; django.setup(); warnings.warn({said!r}, Warning)"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "incidentlib.settings", "LOG_FORMAT": "json"}
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]  # raises on a line that is not JSON
    assert [(r["level"], r["logger"], r["message"]) for r in records] == [
        ("WARNING", "py.warnings", f"<string>:1: Warning: {said}\n")
    ]
