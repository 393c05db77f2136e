"""The `/affected/` form reads `name version`, `name==version`, `name=version` and
`name: version` lines alike, answering as `POST /api/affected` does with the same versions,
and names a line it cannot read instead of dropping it."""

from __future__ import annotations

import json
import re

import pytest

from incidents.selectors import read_version_lines
from incidents.selectors.affected import VersionProblem

pytestmark = pytest.mark.django_db


def form_case_ids(client, text: str) -> list[str]:
    response = client.get("/affected/", {"versions": text})
    assert response.status_code == 200, response.content.decode()
    return re.findall(r'<span class="case-id">(IL-\d+)</span>', response.content.decode())


def api_case_ids(client, versions: dict[str, str]) -> list[str]:
    body = client.post("/api/affected", json.dumps(versions), content_type="application/json").json()
    return [m["case"]["id"] for m in body["affected"]]


def test_every_spelling_of_a_line_is_read_the_same():
    assert read_version_lines(
        "NCCL 2.19.3\ntorch==2.1.0\nCUDA=12.4\nNVIDIA driver: 535.104.05,\n\n  redis-py = 4.5.1  "
    ) == (
        [
            ("NCCL", "2.19.3"),
            ("torch", "2.1.0"),
            ("CUDA", "12.4"),
            ("NVIDIA driver", "535.104.05"),
            ("redis-py", "4.5.1"),
        ],
        [],
    )


def test_a_pip_style_line_answers_as_the_api_does(client):
    expected = api_case_ids(client, {"PyTorch": "2.2.1"})
    assert "IL-0518" in expected  # its range lists the PyTorch 2.2 series
    assert form_case_ids(client, "torch==2.2.1") == expected
    assert form_case_ids(client, "PyTorch=2.2.1") == expected
    assert form_case_ids(client, "pytorch: 2.2.1") == expected


def test_a_second_line_with_an_equals_sign_is_not_dropped(client):
    # It names NCCL a second time: the form refuses it as the API refuses two such keys.
    response = client.get("/affected/", {"versions": "NCCL 2.19.3\nNCCL=2.18.1"})
    assert response.status_code == 400
    assert (
        "<li>NCCL: names the same component (NCCL) as &#x27;NCCL&#x27;; give each component once</li>"
        in response.content.decode()
    )


def test_a_line_without_a_version_is_named():
    assert read_version_lines("NCCL 2.19.3\nNCCL\ntorch==") == (
        [("NCCL", "2.19.3")],
        [
            VersionProblem(
                "versions",
                "line 2 ('NCCL') is not a component and its version; write one a line, as "
                "NCCL 2.19.3, torch==2.1.0 or NVIDIA driver: 535.104.05",
            ),
            VersionProblem(
                "versions",
                "line 3 ('torch==') is not a component and its version; write one a line, as "
                "NCCL 2.19.3, torch==2.1.0 or NVIDIA driver: 535.104.05",
            ),
        ],
    )


def test_the_form_lists_an_unreadable_line_and_answers_nothing(client):
    response = client.get("/affected/", {"versions": "NCCL 2.19.3\nPyTorch"})
    assert response.status_code == 400
    page = response.content.decode()
    assert (
        "<li>versions: line 2 (&#x27;PyTorch&#x27;) is not a component and its version; write one a "
        "line, as NCCL 2.19.3, torch==2.1.0 or NVIDIA driver: 535.104.05</li>"
    ) in page
    assert "with these versions" not in page
    # Only unreadable lines: they are the answer, not "give at least one component" too.
    page = client.get("/affected/", {"versions": "torch"}).content.decode()
    assert "give at least one component" not in page
    assert "line 1 (&#x27;torch&#x27;)" in page


def test_text_past_the_limit_is_said_to_be_unread():
    # Skipped, not refused: the lines read are answered (a long `pip freeze`).
    pairs, problems = read_version_lines("NCCL 2.19.3\n" + " " * 4000 + "\nPyTorch 2.1.0")
    assert pairs == [("NCCL", "2.19.3")]
    assert problems == [
        VersionProblem(
            "versions", "lines 2 on were not read: at most 4,000 characters are read", skipped=True
        )
    ]


def test_a_line_the_limit_cuts_is_not_read_as_a_shorter_version():
    first = "NVIDIA driver: 535.104.05".ljust(3990)  # the limit falls inside `2.19.3`, not as 2.1
    pairs, problems = read_version_lines(first + "\nNCCL 2.19.3\nPyTorch 2.1.0")
    assert pairs == [("NVIDIA driver", "535.104.05")]
    assert [p.detail for p in problems] == ["lines 2 on were not read: at most 4,000 characters are read"]


def test_the_colon_of_a_debian_epoch_stays_in_the_version():
    # As `dpkg -l` and apt print versions: the epoch's colon is no name/version sign.
    assert read_version_lines(
        "nvidia-driver 1:535.104.05\nlibnccl2=1:2.18.3-1\nNVIDIA driver: 1:535.104.05\nNCCL:2.19.3"
    ) == (
        [
            ("nvidia-driver", "1:535.104.05"),
            ("libnccl2", "1:2.18.3-1"),
            ("NVIDIA driver", "1:535.104.05"),
            ("NCCL", "2.19.3"),  # a colon after a name still splits
        ],
        [],
    )


def test_an_epoch_or_a_pip_pin_on_the_form_answers_as_the_plain_version(client):
    expected = api_case_ids(client, {"NCCL": "2.19.3", "NVIDIA driver": "580.126.20"})
    assert {"IL-0605", "IL-0602"} <= set(expected)  # a driver range and an NCCL range
    assert form_case_ids(client, "nvidia-driver 1:580.126.20\nNCCL=1:2.19.3") == expected
    assert form_case_ids(client, "NVIDIA driver: 580.126.20\nnccl: ==2.19.3") == expected


def test_the_form_says_which_spellings_it_reads(client):
    page = client.get("/affected/").content.decode()
    assert 'aria-describedby="versions-help"' in page
    assert (
        '<p class="help" id="versions-help">One a line, any of <code>NCCL 2.19.3</code>, '
        "<code>torch==2.1.0</code>, <code>CUDA=12.4</code> or <code>NVIDIA driver: 535.104.05</code>;"
    ) in page
    assert "(<code>nvidia-driver 1:535.104.05</code>), is read as part of the version" in page


FREEZE_WITH_A_NOTE = (
    "numpy==1.26.4\ntorch==2.1.0+cu121\nnvidia-nccl-cu12==2.18.1\nvllm==0.3.0\n"
    "NVIDIA driver: 535.104.05\nthis is not a version line\n"
)
PROSE_LINE = (
    "line 6 ('this is not a version line') is not a component and its version; write one a line, "
    "as NCCL 2.19.3, torch==2.1.0 or NVIDIA driver: 535.104.05"
)


def test_a_line_of_prose_is_named_whole_not_read_as_a_component_and_version():
    # Before: ("this is not a version", "line"), then "this is not a version: unknown component".
    pairs, problems = read_version_lines(FREEZE_WITH_A_NOTE)
    assert pairs == [
        ("numpy", "1.26.4"),
        ("torch", "2.1.0+cu121"),
        ("nvidia-nccl-cu12", "2.18.1"),
        ("vllm", "0.3.0"),
        ("NVIDIA driver", "535.104.05"),
    ]
    assert problems == [VersionProblem("versions", PROSE_LINE, skipped=True)]


def test_the_form_answers_a_freeze_with_a_note_and_lists_the_note_as_not_checked(client):
    response = client.get("/affected/", {"versions": FREEZE_WITH_A_NOTE})
    assert response.status_code == 200
    page = response.content.decode()
    assert "<li>versions: " + PROSE_LINE.replace("'", "&#x27;") + "</li>" in page
    assert "this is not a version: unknown component" not in page
    # A note alone is no check: it is the answer, as a lone unreadable line is.
    alone = client.get("/affected/", {"versions": "this is not a version line"})
    assert alone.status_code == 400
    assert "line 1 (&#x27;this is not a version line&#x27;) is not a component" in alone.content.decode()
