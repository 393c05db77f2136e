"""The catalogue of hostile values a user can type or send, one entry per kind.

Each entry is (kind, value). Values are text; `RAW_QUERY_VALUES` are already percent-encoded
byte sequences that cannot be written as Python text (invalid UTF-8, overlong forms).
"""

from __future__ import annotations

from django.db.models import Max

from incidents.models import Case, Term
from incidents.proposals.models import Proposal


def store_state() -> tuple[int, int, object, int]:
    """What a hostile request must not change: the numbers of cases and terms, the newest
    case modification time, and the number of proposals."""
    return (
        Case.objects.count(),
        Term.objects.count(),
        Case.objects.aggregate(m=Max("modified"))["m"],
        Proposal.objects.count(),
    )


def published_state() -> tuple[int, int, object]:
    """What a proposal, accepted or not, must not change: the published cases (their number
    and newest modification time) and the vocabulary."""
    published = Case.objects.published()
    return published.count(), Term.objects.count(), published.aggregate(m=Max("modified"))["m"]


HOSTILE_TEXT: list[tuple[str, str]] = [
    ("nul byte", "nccl\x00timeout"),
    ("only a nul", "\x00"),
    ("lone high surrogate", "nccl\ud800timeout"),
    ("lone low surrogate", "\udc00"),
    ("1 MB value", "nccl " * 200_000),
    ("10k character token", "x" * 10_000),
    ("huge float", "1e309"),
    ("negative one", "-1"),
    ("zero", "0"),
    ("not a number", "NaN"),
    ("infinity", "Infinity"),
    ("2^63", str(2**63)),
    ("2^63 - 1", str(2**63 - 1)),
    ("2^64", str(2**64)),
    ("negative 2^63", str(-(2**63))),
    ("decimal fraction", "1.5"),
    ("plus sign", "+1"),
    ("hex literal", "0x10"),
    ("arabic-indic digits", "\u0661\u0662"),
    ("superscript digit", "\u00b2"),
    ("padded number", " 7 "),
    ("sql tautology", "' OR 1=1 --"),
    ("sql drop", "'; DROP TABLE incidents_case; --"),
    ("sql double quote", '" OR ""="'),
    ("sql sleep", "1; SELECT pg_sleep(10)"),
    ("sql comment", "/* */ UNION SELECT * FROM incidents_case"),
    ("fts near", "NEAR(nccl timeout, 2)"),
    ("fts unterminated quote", '"nccl timeout'),
    ("fts star", "*"),
    ("fts operators", "nccl AND OR NOT timeout"),
    ("fts caret", "^nccl"),
    ("fts column filter", "title:nccl"),
    ("fts open parens", "((( nccl"),
    ("tsquery prefix", "nccl:*"),
    ("tsquery operators", "!! & | <->"),
    ("lone minus", "-"),
    ("double minus", "--"),
    ("lone quote", "'"),
    ("empty quotes", '""'),
    ("backslash", "\\"),
    ("path traversal", "../../etc/passwd"),
    ("encoded traversal", "..%2f..%2fetc%2fpasswd"),
    ("windows traversal", "..\\..\\windows\\win.ini"),
    ("greek iota look-alike id", "\u0399L-0428"),
    ("unicode hyphen id", "IL\u20100428"),
    ("fullwidth id", "\uff29\uff2c\uff0d\uff10\uff14\uff12\uff18"),
    ("right-to-left override", "\u202eIL-0428"),
    ("right-to-left mark", "nccl\u200ftimeout"),
    ("zero-width space", "IL\u200b-0428"),
    ("byte order mark", "\ufeffnccl"),
    ("nfd accents", "re\u0301seau"),
    ("combining flood", "a" + "\u0301" * 500),
    ("emoji", "\U0001f525 nccl"),
    ("crlf header injection", "a\r\nSet-Cookie: pwned=1"),
    ("lf header injection", "a\nLocation: http://evil.example"),
    ("ansi escape", "\x1b[31mnccl\x1b[0m"),
    ("delete and backspace", "nccl\x7f\x08"),
    ("tab and newlines", "\tnccl\n\rtimeout\n"),
    ("whitespace only", "   "),
    ("empty", ""),
    ("script tag", "<script>alert(1)</script>"),
    ("javascript url", "javascript:alert(1)"),
    ("template injection", "{{7*7}}{% debug %}"),
    ("shell expansion", "${7*7}$(id)`id`"),
    ("format string", "%s%s%n{0}{}"),
    ("very long id", "IL-" + "9" * 10_000),
    ("id with slash", "IL-0428/similar"),
    ("percent sign", "100%"),
    ("json in a parameter", '{"$gt": ""}'),
    # URLs urlsplit cannot read: wherever a URL or a reference is parsed (search tokens,
    # lookups, source and reference URLs, the proposal lookalike check).
    ("url with a port out of range", "https://example.org:99999/x"),
    ("url with a port that is not a number", "https://github.com:abc/NVIDIA/nccl/issues/1"),
    ("url with an unclosed bracket", "http://[::1"),
    ("issue alias with a huge number", "NVIDIA/nccl#" + "9" * 30),
]

# Percent-encoded bytes placed verbatim into a query string or path.
RAW_QUERY_VALUES: list[tuple[str, str]] = [
    ("invalid utf-8", "%ff%fe"),
    ("overlong utf-8 slash", "%c0%af"),
    ("encoded lone surrogate", "%ed%a0%80"),
    ("truncated utf-8", "nccl%e2%82"),
    ("encoded nul", "%00"),
    ("double-encoded traversal", "%252e%252e%252f"),
]

# Bodies for JSON endpoints: (kind, raw bytes, content type).
HOSTILE_BODIES: list[tuple[str, bytes, str]] = [
    ("deeply nested arrays", b"[" * 100_000 + b"]" * 100_000, "application/json"),
    ("deeply nested objects", b'{"text":' * 50_000 + b'"x"' + b"}" * 50_000, "application/json"),
    ("json number overflow", b'{"text": "nccl", "limit": 1e309}', "application/json"),
    ("json nan", b'{"text": "nccl", "limit": NaN}', "application/json"),
    ("json 2^64 limit", b'{"text": "nccl", "limit": 18446744073709551616}', "application/json"),
    ("json negative limit", b'{"text": "nccl", "limit": -1}', "application/json"),
    ("json array body", b'["nccl timeout"]', "application/json"),
    ("json string body", b'"nccl timeout"', "application/json"),
    ("json null body", b"null", "application/json"),
    ("truncated json", b'{"text": "nccl', "application/json"),
    ("invalid utf-8 json", b'{"text": "\xff\xfe"}', "application/json"),
    ("bom then json", b'\xef\xbb\xbf{"text": "nccl timeout"}', "application/json"),
    ("text is a number", b'{"text": 12}', "application/json"),
    ("text is an object", b'{"text": {"a": 1}}', "application/json"),
    ("duplicate keys", b'{"text": "a", "text": "nccl"}', "application/json"),
    ("xml body", b"<log>nccl timeout</log>", "application/xml"),
    ("form body", b"text=nccl+timeout", "application/x-www-form-urlencoded"),
    ("multipart without boundary", b"--x\r\n\r\nnccl\r\n--x--", "multipart/form-data"),
    ("no content type", b'{"text": "nccl timeout"}', ""),
    ("json with charset latin-1", b'{"text": "r\xe9seau"}', "application/json; charset=latin-1"),
]
