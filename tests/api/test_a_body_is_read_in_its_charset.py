"""`POST /api/match` reads a body in the charset its `Content-Type` names, else by its
byte-order mark, else as UTF-8: a UTF-16 log from PowerShell matches as the UTF-8 one does.
A charset that is no text encoding is a 415 naming it; bytes that are not text in the
charset named are a 400 naming the byte. JSON bodies are read the same way."""

from __future__ import annotations

import codecs
import json

import pytest

pytestmark = pytest.mark.django_db

LOG = "NVRM: Xid (PCI:0000:87:00): 79, pid=1234, GPU has fallen off the bus.\nepoch 3 step 100 loss 2.1\n"


def post(client, body: bytes, content_type: str):
    # `generic` sends the bytes as they are (`post` would re-encode them to the charset).
    return client.generic("POST", "/api/match", body, content_type=content_type)


@pytest.fixture
def as_utf8(client):
    response = post(client, LOG.encode(), "text/plain")
    assert response.status_code == 200 and response.json()["results"]
    return response.json()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (LOG.encode("utf-16"), "text/plain"),  # PowerShell: UTF-16-LE with its mark
        (LOG.encode("utf-16"), "text/plain; charset=utf-16"),
        (LOG.encode("utf-16-le"), "text/plain; charset=UTF-16LE"),
        (codecs.BOM_UTF16_BE + LOG.encode("utf-16-be"), "text/plain"),
        (LOG.encode("utf-32"), "text/plain"),
        (codecs.BOM_UTF8 + LOG.encode(), "text/plain"),
        (LOG.encode("utf-16-le"), "text/plain"),  # no mark: the zero bytes of ASCII text
        (LOG.encode("latin-1"), 'text/plain; charset="ISO-8859-1"'),
    ],
)
def test_a_plain_body_is_read_in_its_charset(client, as_utf8, body, content_type):
    response = post(client, body, content_type)
    assert response.status_code == 200
    assert response.json() == as_utf8


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (json.dumps({"text": LOG}).encode("utf-16"), "application/json; charset=utf-16"),
        (json.dumps({"text": LOG}).encode("utf-16"), "application/json"),
        (codecs.BOM_UTF8 + json.dumps({"text": LOG}).encode(), "application/json"),
    ],
)
def test_a_json_body_is_read_in_its_charset(client, as_utf8, body, content_type):
    response = post(client, body, content_type)
    assert response.status_code == 200
    assert response.json() == as_utf8


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain; charset=klingon",
        "application/json; charset=bz2_codec",
        # Text codecs Python has that no body is written in: punycode's decoder takes time
        # quadratic in the body and fails with a bare UnicodeError (a 500 before).
        "application/json; charset=punycode",
        "text/plain; charset=idna",
    ],
)
def test_a_charset_that_is_no_text_encoding_is_a_415_naming_it(client, content_type):
    charset = content_type.split("=")[1]
    response = post(client, json.dumps({"text": LOG}).encode(), content_type)
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    detail = f"unknown charset '{charset}': name a text encoding such as utf-8 or utf-16, or none for UTF-8"
    assert response.json()["errors"] == [
        {
            "parameter": "Content-Type",
            "detail": detail,
            "value": f"charset={charset}",
            "suggestions": ["utf-8", "utf-16"],
        }
    ]
    assert response.json()["detail"] == f"Content-Type: {detail}"


def test_bytes_not_in_the_declared_charset_are_a_400_naming_the_byte(client):
    body = LOG.encode() + b"\xff tail"
    response = post(client, body, "text/plain; charset=utf-8")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameter": "body",
            "detail": f"the body is not utf-8 text: byte {len(LOG.encode())} (0xff): invalid start byte; "
            "name the charset it is written in (Content-Type: text/plain; charset=...), or none to have "
            "the bytes that are not UTF-8 read as U+FFFD",
        }
    ]
    # Without a charset they are read as U+FFFD, as before.
    assert post(client, body, "text/plain").status_code == 200


def test_json_that_is_not_utf8_without_a_charset_is_a_400(client):
    response = post(client, b'{"text": "r\xe9seau"}', "application/json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["detail"].startswith("the body is not utf-8 text: byte 11 (0xe9)")
    # Named, it is read.
    assert post(client, b'{"text": "r\xe9seau"}', "application/json; charset=latin-1").status_code == 200


def test_a_log_starting_with_a_nul_byte_is_read_as_utf8_not_utf16(client):
    # A log padded with NUL after an unclean shutdown is not UTF-16: only a byte-order mark
    # says a plain-text body's encoding (RFC 4627's zero-byte rule is for JSON).
    log = b"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)\n"
    plain = client.post("/api/match", log, content_type="text/plain").json()
    body = b"\x00" + log + b" " * ((len(log) + 1) % 2)  # an even length: it decodes as UTF-16-BE
    assert len(body) % 2 == 0
    padded = client.post("/api/match", body, content_type="text/plain").json()
    assert plain["results"]
    assert [hit["id"] for hit in padded["results"]] == [hit["id"] for hit in plain["results"]]


def test_a_latin1_body_is_read_in_latin1(client):
    text = "NCCL WARN Call to ibv_reg_mr failed: Cannot allocate memory (n\u00e6ste fors\u00f8g)\n"
    response = post(client, text.encode("latin-1"), "text/plain; charset=latin1")
    assert response.status_code == 200
    assert response.json()["reading"]["lines_read"] == 1  # an accepted charset, not a 415
