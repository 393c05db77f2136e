""" "Am I affected?" (issue 15, point 3): version-range semantics, `POST /api/affected` on the
fixture cases' ranges, its 400s naming what is wrong, its query count, and the form."""

from __future__ import annotations

import json

import pytest

from incidents.versions import RangeVerdict, parse_version, range_verdict

NCCL_A2A = {
    "component": "NCCL",
    "versions": ["2.19.1", "2.19.3", "2.19.4"],
    "introduced": "2.19.1",
    "fixed": "2.20.3",
    "last_affected": None,
}


def verdict(item, version) -> str:
    return range_verdict({"versions": [], **item}, version).verdict


@pytest.mark.parametrize(
    "version, expected",
    [
        ("2.18.6", "not_affected"),  # before introduced
        ("2.19.1", "affected"),  # introduced is inclusive
        ("2.19.2", "affected"),  # inside the range though not listed
        ("2.20.2", "affected"),
        ("2.20.3", "not_affected"),  # fixed is exclusive
        ("2.21.5", "not_affected"),
        ("v2.19.3", "affected"),  # listed, with a leading v
    ],
)
def test_introduced_is_inclusive_and_fixed_exclusive(version, expected):
    assert range_verdict(NCCL_A2A, version).verdict == expected


def test_last_affected_is_inclusive_and_listed_versions_stand_alone():
    assert verdict({"introduced": "0", "last_affected": "2.22.3"}, "2.22.3") == "affected"
    assert verdict({"introduced": "0", "last_affected": "2.22.3"}, "2.23.4") == "not_affected"
    assert verdict({"versions": ["535.104.05"]}, "535.104.5") == "affected"  # number by number
    assert verdict({"versions": ["535.104.05"]}, "535.129.03") == "not_affected"
    assert verdict({"versions": ["2.10"]}, "2.10.0") == "affected"
    assert (
        verdict({"introduced": "0", "fixed": "2.23.4"}, "2.18.1-1") == "affected"
    )  # a package suffix is a post-release


def test_a_debian_epoch_is_read_and_left_out_of_the_comparison():
    # `1:` is the Debian package's counter; ranges are written in upstream versions.
    assert parse_version("1:535.104.05") == parse_version("535.104.05")
    assert str(parse_version("1:2.18.3-1")) == "2.18.3.post1"
    assert verdict({"introduced": "525", "fixed": "525.105.17"}, "1:525.89.02") == "affected"
    assert verdict({"introduced": "525", "fixed": "525.105.17"}, "1:525.105.17") == "not_affected"
    assert range_verdict(NCCL_A2A, "1:2.19.3") == RangeVerdict("affected", "2.19.3 is listed as affected")
    assert parse_version("1:") is None and parse_version("a:2.1") is None


def test_a_version_with_fewer_numbers_names_its_series():
    # Sources name series ("NCCL 2.26", "the 525 driver"); 2.26.2 is in the 2.26 series, so a
    # case listing "2.26" holds it, and a last affected "2.26" covers every 2.26.x.
    assert range_verdict({"versions": ["2.26"]}, "2.26.2") == RangeVerdict(
        "affected", "2.26.2 is in the 2.26 series listed as affected"
    )
    assert verdict({"versions": ["525"]}, "525.105.17") == "affected"
    assert verdict({"versions": ["2.26"]}, "2.27.1") == "not_affected"
    assert verdict({"versions": ["2.26"]}, "2.2") == "not_affected"  # a shorter version is no member
    assert verdict({"versions": ["2.26.0rc1"]}, "2.26.0") == "not_affected"  # a pre-release names itself
    assert verdict({"introduced": "0", "last_affected": "2.26"}, "2.26.9") == "affected"
    assert verdict({"introduced": "0", "last_affected": "2.26"}, "2.27.0") == "not_affected"
    assert verdict({"introduced": "2.26", "fixed": "2.27"}, "2.26.0") == "affected"
    assert verdict({"versions": ["2.7"], "fixed": "2.7.1"}, "2.7.0") == "affected"
    assert verdict({"versions": ["2.7"], "fixed": "2.7.1"}, "2.7.1") == "not_affected"  # the fix ends it


def test_a_range_without_introduced_starts_at_its_earliest_listed_version():
    # Until December 2026 a missing `introduced` meant no lower bound, so a case seen on NCCL
    # 2.22.3 and fixed in 2.23.4 claimed 2.10.3. A source that names the versions it was seen
    # on does not say where the problem began: older versions are only possibly affected
    # ("unknown", listed apart). A source saying "2.22.3 and earlier" gives `introduced: "0"`.
    seen = {"versions": ["2.22.3"], "fixed": "2.23.4"}
    assert range_verdict(seen, "2.10.3") == RangeVerdict(
        "unknown", "no introduced version: 2.10.3 is before the earliest listed 2.22.3; possibly affected"
    )
    assert range_verdict(seen, "2.22.3").verdict == "affected"  # listed
    assert range_verdict(seen, "2.23.0") == RangeVerdict(
        "affected", "earliest listed 2.22.3 <= 2.23.0 < fixed 2.23.4"
    )
    assert range_verdict(seen, "2.23.4").verdict == "not_affected"  # fixed is exclusive still
    assert range_verdict({**seen, "introduced": "0"}, "2.10.3") == RangeVerdict(
        "affected", "introduced 0 <= 2.10.3 < fixed 2.23.4"
    )
    assert range_verdict({"versions": [], "fixed": "v0.5.10"}, "0.5.9") == RangeVerdict(
        "unknown", "no introduced version and none listed: 0.5.9 < fixed v0.5.10; possibly affected"
    )
    assert verdict({"last_affected": "2.22.3"}, "2.23.4") == "not_affected"


def test_a_bound_with_no_order_is_unknown_not_a_guess():
    result = range_verdict({"versions": [], "fixed": "r0.3.0"}, "0.2.0")
    assert (result.verdict, result.why) == ("unknown", "fixed 'r0.3.0' has no order to compare 0.2.0 with")
    assert parse_version("r0.3.0") is None
    assert parse_version("8a5521ac4226") is None
    assert parse_version("v23.9.2") == parse_version("23.9.2")


def post(client, body):
    return client.post("/api/affected", json.dumps(body), content_type="application/json")


@pytest.mark.django_db
def test_the_cases_holding_the_versions_come_with_why_fix_and_workaround(client):
    body = post(client, {"NCCL": "2.19.3", "NVIDIA driver": "580.126.20", "torch": "2.10.0"}).json()
    assert body["checked"] == {"NCCL": "2.19.3", "NVIDIA driver": "580.126.20", "PyTorch": "2.10.0"}
    found = [(m["case"]["id"], m["component"], m["why"], m["fixed"]) for m in body["affected"]]
    assert found == [
        ("IL-0605", "NVIDIA driver", "580.126.20 is listed as affected", None),
        ("IL-0615", "PyTorch", "2.10 is listed as affected", None),
        ("IL-0604", "NCCL", "introduced 0 <= 2.19.3 < fixed 2.23.4", "2.23.4"),
        ("IL-0518", "NCCL", "2.19.3 is listed as affected", None),
        ("IL-0602", "NCCL", "2.19.3 is listed as affected", "2.20.3"),
        ("IL-0567", "NCCL", "2.19.3 is listed as affected", None),  # NVLS hang seen on 2.19.3
    ]
    assert body["count"] == 6 and body["unknown"] == []
    a2a = body["affected"][4]
    assert a2a["range"] == NCCL_A2A
    assert a2a["workaround"]


@pytest.mark.django_db
def test_a_fixed_version_is_not_affected(client):
    body = post(client, {"versions": {"nccl": "2.23.4"}}).json()
    assert "IL-0604" not in [m["case"]["id"] for m in body["affected"] + body["unknown"]]  # fixed in 2.23.4
    body = post(client, {"versions": {"nccl": "2.20.3"}}).json()
    found = [m["case"]["id"] for m in body["affected"]]
    assert "IL-0604" in found and "IL-0602" not in found  # 0602 was fixed in 2.20.3


def affected_ids(client, versions) -> tuple[list[str], list[str]]:
    body = post(client, versions).json()
    return [m["case"]["id"] for m in body["affected"]], [m["case"]["id"] for m in body["unknown"]]


@pytest.mark.django_db
def test_a_range_starts_where_the_source_says_the_bug_came_in(client):
    # IL-0497's weak compare-and-swap loop arrived with NCCL 2.28.9 (2.28.7 used a strong
    # one), so an older NCCL is neither affected nor "possibly affected" by that case.
    assert "IL-0497" not in [case for ids in affected_ids(client, {"NCCL": "2.28.7"}) for case in ids]
    body = post(client, {"NCCL": "2.29.0"}).json()
    [match] = [m for m in body["affected"] if m["case"]["id"] == "IL-0497"]
    assert (match["why"], match["fixed"]) == ("introduced 2.28.9 <= 2.29.0 < fixed 2.29.3", "2.29.3")
    assert "IL-0497" in affected_ids(client, {"NCCL": "2.29.2"})[0]
    assert "IL-0497" not in [case for ids in affected_ids(client, {"NCCL": "2.29.3"}) for case in ids]


@pytest.mark.django_db
def test_ranges_from_release_notes_and_fix_releases_hold_inside_and_stop_at_the_fix(client):
    # IL-0477: NVIDIA's 525 notes: the GSP RPC timeout (Xid 119) came with the first 525
    # driver and was fixed in 525.105.17, so an earlier 525 driver is affected, the fix
    # release is not, and a 520 driver is before the range.
    body = post(client, {"NVIDIA driver": "525.85.12"}).json()
    [gsp] = [m for m in body["affected"] if m["case"]["id"] == "IL-0477"]
    assert (gsp["why"], gsp["fixed"]) == ("introduced 525 <= 525.85.12 < fixed 525.105.17", "525.105.17")
    for version in ("525.105.17", "520.61.05"):
        found, possible = affected_ids(client, {"NVIDIA driver": version})
        assert "IL-0477" not in found + possible, version
    # IL-0474: PyTorch 2.7.0 hangs with device_id passed; 2.7.1 turned non-blocking mode off.
    found, _ = affected_ids(client, {"torch": "2.7.0"})
    assert "IL-0474" in found
    found, possible = affected_ids(client, {"torch": "2.7.1"})
    assert "IL-0474" not in found + possible
    # Its sources name the NCCL series only ("NCCL 2.26"): any 2.26.x release is in it.
    found, _ = affected_ids(client, {"NCCL": "2.26.2"})
    assert "IL-0474" in found
    found, possible = affected_ids(client, {"NCCL": "2.27.3"})
    assert "IL-0474" not in found + possible


@pytest.mark.django_db
def test_a_release_before_the_one_the_source_says_brought_the_change_is_not_possibly_affected(client):
    # IL-0474: "Upgrading to PyTorch 2.7 makes the following script randomly hang" (#153960),
    # the title's "PyTorch 2.7 made NCCL communicators non-blocking". Its range listed 2.7
    # with no `introduced`, so every older PyTorch was "possibly affected" (walk W8: 2.1.0).
    body = post(client, {"versions": {"torch": "2.1.0+cu121"}}).json()
    assert "IL-0474" not in [m["case"]["id"] for m in body["affected"] + body["unknown"]]
    found, possible = affected_ids(client, {"torch": "2.6.0"})
    assert "IL-0474" not in found + possible
    body = post(client, {"torch": "2.7.0"}).json()
    [match] = [m for m in body["affected"] if m["case"]["id"] == "IL-0474"]
    assert (match["why"], match["fixed"]) == ("2.7 is listed as affected", "2.7.1")  # 2.7 reads as 2.7.0
    assert match["range"]["introduced"] == "2.7"


@pytest.mark.django_db
def test_an_introduced_version_bounds_the_range_from_below(client):
    # IL-0471: LL128 corruption on GH200 from NCCL 2.27.3 on, not seen with 2.26.6.
    body = post(client, {"NCCL": "2.28.3"}).json()
    [ll128] = [m for m in body["affected"] if m["case"]["id"] == "IL-0471"]
    assert ll128["why"] == "introduced 2.27.3 <= 2.28.3"
    found, possible = affected_ids(client, {"NCCL": "2.26.6"})
    assert "IL-0471" not in found + possible
    # IL-0475 names Transformers, a component term spelled here in lower case.
    found, _ = affected_ids(client, {"transformers": "4.36.1"})
    assert found == ["IL-0475"]


@pytest.mark.django_db
def test_versions_before_the_earliest_seen_are_possibly_affected_not_affected(client):
    # IL-0472: NCCL 2.10.3 corrupted data, fixed in 2.12.6; the source says nothing of 2.9.
    body = post(client, {"NCCL": "2.9.9"}).json()
    assert "IL-0472" not in [m["case"]["id"] for m in body["affected"]]
    [possible] = [m for m in body["unknown"] if m["case"]["id"] == "IL-0472"]
    assert (possible["why"], possible["fixed"]) == (
        "no introduced version: 2.9.9 is before the earliest listed 2.10.3; possibly affected",
        "2.12.6",
    )
    body = post(client, {"NCCL": "2.11.4"}).json()
    [match] = [m for m in body["affected"] if m["case"]["id"] == "IL-0472"]
    assert match["why"] == "earliest listed 2.10.3 <= 2.11.4 < fixed 2.12.6"


@pytest.mark.django_db
def test_unknown_components_and_versions_with_no_order_are_a_400_naming_them(client):
    response = post(client, {"NCCLX": "2.19.3", "NCCL": "two", "PyTorch": "2.1.0"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameter": "NCCLX", "detail": "unknown component", "value": "NCCLX", "suggestions": ["NCCL"]},
        {
            "parameter": "NCCL",
            "detail": "not a version that can be compared (e.g. 2.18.1, 535.104.05)",
            "value": "two",
        },
    ]
    bad_bodies: list[object] = [[], {"NCCL": 2.19}, {}]
    for bad in bad_bodies:
        errors = post(client, bad).json()["errors"]
        assert errors[0]["parameter"] == "versions", bad


WANTED = 'a JSON object of component -> version strings, such as {"NCCL": "2.19.3"}'


@pytest.mark.django_db
@pytest.mark.parametrize(
    "versions, detail",
    [
        ("", "must not be empty: send " + WANTED),
        ("  ", "must not be empty (it holds only spaces): send " + WANTED),
        ("NCCL 2.19.3", "send " + WANTED),
    ],
)
def test_a_versions_value_that_is_no_object_is_a_400_saying_what_it_takes(client, versions, detail):
    # `{"versions": ""}` was read as a bare mapping naming a component "versions": "versions:
    # unknown component" (a new user's walkthrough).
    response = post(client, {"versions": versions})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "versions", "detail": detail}]


@pytest.mark.django_db
def test_two_keys_naming_one_component_are_a_400_naming_both(client):
    # "NCCL " and "nccl" spell the NCCL term: last-wins would compare a version the sender
    # may not have meant; which one is theirs to say.
    response = post(client, {"NCCL": "2.19.3", "NCCL ": "2.30.0", "PyTorch": "2.1.0", "torch": "2.1.0"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameter": "NCCL ",
            "detail": "names the same component (NCCL) as 'NCCL'; give each component once",
        },
        {
            "parameter": "torch",
            "detail": "names the same component (PyTorch) as 'PyTorch'; give each component once",
        },
    ]
    html = client.get("/affected/", {"versions": "NCCL 2.19.3\nnccl: 2.20.1"})
    assert html.status_code == 400
    assert (
        "<li>nccl: names the same component (NCCL) as &#x27;NCCL&#x27;; give each component once</li>"
        in html.content.decode()
    )
    # The same line twice is the same mistake on the form (a dict would have hidden it).
    assert client.get("/affected/", {"versions": "NCCL 2.19.3\nNCCL 2.19.3"}).status_code == 400


@pytest.mark.django_db
def test_the_answer_runs_a_fixed_number_of_queries(client, django_assert_num_queries):
    # The component terms, the cases with a range for one of them, their terms.
    with django_assert_num_queries(3):
        assert post(client, {"NCCL": "2.19.3", "PyTorch": "2.1.0"}).status_code == 200


@pytest.mark.django_db
def test_the_form_answers_the_same(client):
    html = client.get("/affected/", {"versions": "NCCL 2.19.3\nNVIDIA driver: 580.126.20"}).content.decode()
    assert "5 cases with these versions" in html
    assert "2.19.3 &lt; fixed 2.23.4" in html
    assert 'href="/cases/IL-0602"' in html
    html = client.get("/affected/", {"versions": "NCCL 2.9.9"}).content.decode()
    assert "Possibly affected" in html and "before the earliest listed 2.10.3" in html
    response = client.get("/affected/", {"versions": "NCCLX 2.19.3"})
    assert response.status_code == 400
    assert "NCCLX: unknown component (nearest: NCCL)" in response.content.decode()


@pytest.mark.django_db
def test_redis_py_ranges_follow_both_advisories(client):
    # IL-0454: CVE-2023-28858 (pipelines) was fixed in 4.3.6 / 4.4.3 / 4.5.3, CVE-2023-28859
    # (every other command) only in 4.4.4 / 4.5.4; both advisories start at 4.2.0. The ChatGPT
    # outage ran on the version redis-py #2624 reports, 4.5.1, inside both.
    body = post(client, {"redis-py": "4.5.1"}).json()
    assert body["checked"] == {"redis-py": "4.5.1"}
    matches = [(m["case"]["id"], m["why"], m["fixed"]) for m in body["affected"]]
    assert matches == [
        ("IL-0454", "introduced 4.5.0 <= 4.5.1 < fixed 4.5.3", "4.5.3"),
        ("IL-0454", "introduced 4.5.0 <= 4.5.1 < fixed 4.5.4", "4.5.4"),
    ]
    # The pipeline-only fix leaves the second advisory's range open.
    found, _ = affected_ids(client, {"redis (Python client)": "4.5.3"})
    assert found == ["IL-0454"]
    for version in ("4.5.4", "4.4.4", "4.1.4"):  # the complete fixes; before 4.2.0
        found, possible = affected_ids(client, {"redis-py": version})
        assert "IL-0454" not in found + possible, version


@pytest.mark.django_db
def test_fa4_betas_before_the_block_sparse_fix_are_affected(client):
    # IL-0490: Marin PR #8741 moved FA4 off beta16 for the race; the fix "landed in beta26".
    body = post(client, {"FA4": "4.0.0b20"}).json()
    [race] = [m for m in body["affected"] if m["case"]["id"] == "IL-0490"]
    assert race["why"] == "earliest listed 4.0.0b16 <= 4.0.0b20 < fixed 4.0.0b26"
    assert race["fixed"] == "4.0.0b26"
    found, possible = affected_ids(client, {"FA4": "4.0.0b26"})
    assert "IL-0490" not in found + possible
