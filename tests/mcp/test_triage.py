"""triage: the on-call answer in one call, over MCP and POST /api/triage (one function)."""

from __future__ import annotations

import json
from contextlib import nullcontext

import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from incidentlib.db_router import cache_alias
from incidents import triage as triage_module
from incidents.search import search_cases
from incidents.selectors.params import NOTHING_TO_TRIAGE
from mcp_server.budget import json_size
from mcp_server.triage_tool import TRIAGE_BUDGET
from tests.conftest import load_fixture
from tests.factories import synthetic_case
from tests.mcp.scenarios import SCENARIOS

VLLM = SCENARIOS[1]


def test_the_right_case_first_with_why_fixes_checks_and_sources(mcp):
    result = mcp.call("triage", symptoms=VLLM.symptoms, text=VLLM.log, **VLLM.context)
    assert not result.is_error
    answer = result.structured_content
    assert json.loads(result.content[0].text) == answer
    first = answer["cases"][0]
    fixture = load_fixture("IL-0463")
    assert first["id"] == "IL-0463" and first["confidence"] == "strong" and answer["known"] is True
    assert first["title"] == fixture["title"]
    assert first["root_cause"]["category"] == fixture["root_cause"]["category"]
    assert first["fix"][0][:100] == " ".join(fixture["remediation"][0].split())[:100]
    assert len(first["fix"]) == min(3, len(fixture["remediation"]))
    assert len(first["checks"]) == min(2, len(fixture["checks"]))
    assert first["sources"] == [s["url"] for s in fixture["sources"]][:2]
    assert first["html_url"] == f"{settings.SITE_URL}/cases/IL-0463"
    assert first["url"] == f"{settings.SITE_URL}/api/cases/IL-0463"
    assert "watchdog caught collective operation timeout" in first["why"]["matched_terms"]
    assert "inference job" in first["why"]["context"]
    # Each matched log line once, and the case points at it by number.
    numbers = [line["line_number"] for line in answer["log_lines"]]
    assert numbers == sorted(set(numbers)) and 2 in first["why"]["line_numbers"]
    assert answer["log_lines"][numbers.index(2)]["line"].startswith("[E ProcessGroupNCCL.cpp:475]")
    assert 3 <= len(answer["cases"]) <= 5
    assert json_size(answer) <= TRIAGE_BUDGET
    # Lists link their cases as resources.
    links = [block for block in result.content[1:] if block.type == "resource_link"]
    assert [str(link.uri) for link in links] == [f"incident://{c['id']}" for c in answer["cases"]]


def test_a_training_context_puts_training_cases_before_an_inference_one(mcp):
    log = "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)"
    # Without context the exact phrase puts the vLLM inference case first; a training job
    # moves it down (issue 16: match_log ranked a vLLM case first for a training log).
    assert mcp.ok("triage", text=log)["cases"][0]["id"] == "IL-0463"
    answer = mcp.ok("triage", text=log, job="training")
    assert answer["cases"][0]["id"] != "IL-0463"
    # The context orders the cases and says what does not fit; the label stays the engine's.
    labels = {h["id"]: h["confidence"] for h in mcp.ok("match_log", text=log, limit=10)["hits"]}
    for case in answer["cases"]:
        assert case["confidence"] == labels[case["id"]], case["id"]
    inference = [c for c in answer["cases"] if c["id"] == "IL-0463"]
    for case in inference:
        assert "the case is about inference, not training" in case["why"]["context"]
        if case["confidence"] == "strong" and all(
            c["confidence"] != "strong" for c in answer["cases"] if c["id"] != "IL-0463"
        ):
            assert answer["notes"] == [
                "IL-0463 matches strongly, but the case is about inference, not training."
            ]


def test_nothing_known_is_said_plainly(mcp):
    answer = mcp.ok("triage", symptoms="the office printer is out of toner and jams on every page")
    assert answer["known"] is False
    # Then the note naming the partial matches that fill the three cases.
    assert answer["notes"][0] == triage_module.NOTHING_KNOWN and len(answer["notes"]) == 2
    assert all(case["confidence"] != "strong" for case in answer["cases"])


def test_it_needs_symptoms_or_a_log(mcp):
    assert mcp.error("triage") == (
        "Invalid arguments: give symptoms (what failed, the error text) or log lines as text, or both."
    )
    assert mcp.error("triage", symptoms="hang", limit=9) == (
        "Invalid arguments: limit must be between 3 and 5 (got 9)."
    )


def test_the_api_serves_the_same_answer(mcp, client):
    scenario = SCENARIOS[2]
    body = {"symptoms": scenario.symptoms, "text": scenario.log, **scenario.context}
    response = client.post("/api/triage", body, content_type="application/json")
    assert response.status_code == 200, response.content
    from_api = response.json()
    from_tool = mcp.ok("triage", **body)
    # MCP may cut the list to its byte budget (and says so); the order is the same.
    api_ids, tool_ids = [c["id"] for c in from_api["cases"]], [c["id"] for c in from_tool["cases"]]
    assert tool_ids == api_ids[: len(tool_ids)] and len(tool_ids) >= 3
    assert from_tool["truncated"] is (len(tool_ids) < len(api_ids))
    assert from_api["cases"][0]["id"] == scenario.expected
    for key in ("confidence", "why", "root_cause", "fix", "checks", "sources"):
        assert from_api["cases"][0][key] == from_tool["cases"][0][key], key
    assert from_api["cases"][0]["html_url"] == f"http://testserver/cases/{scenario.expected}"
    shown = {n for c in from_tool["cases"] for n in c["why"]["line_numbers"]}
    assert [line for line in from_api["log_lines"] if line["line_number"] in shown] == from_tool["log_lines"]


def test_the_api_refuses_a_body_without_symptoms_or_log_in_the_tool_s_words(db, client, mcp):
    response = client.post("/api/triage", {"job": "training"}, content_type="application/json")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error == {"parameter": "symptoms", "detail": NOTHING_TO_TRIAGE}
    assert mcp.error("triage", job="training") == f"Invalid arguments: {NOTHING_TO_TRIAGE}."
    response = client.post("/api/triage", {"symptoms": "hang", "limit": 7}, content_type="application/json")
    assert response.status_code == 400


def test_the_api_answer_costs_a_fixed_number_of_queries(db, client, django_assert_num_queries):
    scenario = SCENARIOS[0]
    body = {"symptoms": scenario.symptoms, "text": scenario.log, **scenario.context}
    # 7 for the word search (stored embeddings included, no facet counts: triage shows none;
    # one to check whether any case holds the words that are no vocabulary word, such as
    # "replaced": `spelling.check_words`), 9 for the log match (its evidence lines' semantic
    # score and rare words included), 1 for the accelerator vocabulary (the context names one),
    # 2 for the candidates' sources; and 6 for the rate limit (the database cache), which
    # on SQLite go to the cache's own file, on PostgreSQL to the case database. The log has
    # two lines: each is searched as words too (`log_as_words`), a word search's queries each.
    line_searches = 0
    for line in scenario.log.splitlines():
        with CaptureQueriesContext(connections["default"]) as searched:
            search_cases(query=line, limit=5, facets=False)
        line_searches += len(searched)
    assert line_searches >= 2 * 7
    work, throttle = 7 + 9 + line_searches + 1 + 2, 6
    own_file = cache_alias() == "cache"
    with (
        django_assert_num_queries(throttle, connection=connections["cache"]) if own_file else nullcontext(),
        django_assert_num_queries(work if own_file else work + throttle),
    ):
        response = client.post("/api/triage", body, content_type="application/json")
    assert response.status_code == 200


def labels_of(cases: list[dict]) -> list[tuple[str, str]]:
    return [(case["id"], case["confidence"]) for case in cases]


def test_triage_search_match_log_and_the_api_give_a_hit_the_same_label(mcp, client):
    """One engine, one confidence: a log alone (or words alone) gets the same cases, in the
    same order, with the same labels from triage as from match_log (or search_incidents)
    and from their API twins, POST /api/match and GET /api/cases/?q=."""
    log = SCENARIOS[2].log
    triaged = mcp.ok("triage", text=log)["cases"]
    matched = mcp.ok("match_log", text=log, limit=len(triaged))["hits"]
    api = client.post("/api/match", {"text": log, "limit": len(triaged)}, content_type="application/json")
    assert labels_of(triaged) == labels_of(matched) == labels_of(api.json()["results"])
    words = "Training job hangs after a node was replaced"  # no scale, which triage weighs apart
    triaged = mcp.ok("triage", symptoms=words)["cases"]
    searched = mcp.ok("search_incidents", query=words, limit=len(triaged))["hits"]
    api = client.get("/api/cases/", {"q": words, "page_size": len(triaged)})
    assert labels_of(triaged) == labels_of(searched) == labels_of(api.json()["results"])
    assert searched[0]["confidence"] == "strong"
    assert {h["confidence"] for h in searched} <= {"strong", "possible"}


def test_with_words_and_a_log_a_case_gets_the_strongest_of_its_two_labels(mcp):
    rank = {"strong": 0, "possible": 1, "weak": 2}
    for scenario in SCENARIOS:
        answer = mcp.ok("triage", symptoms=scenario.symptoms, text=scenario.log, **scenario.context)
        searched, _ = triage_module.read_scale(scenario.symptoms)  # the words less their scale
        words = {h["id"]: h["confidence"] for h in mcp.ok("search_incidents", query=searched)["hits"]}
        logged = {h["id"]: h["confidence"] for h in mcp.ok("match_log", text=scenario.log, limit=10)["hits"]}
        for case in answer["cases"]:
            given = [label[case["id"]] for label in (words, logged) if case["id"] in label]
            assert given, (scenario.name, case["id"])
            assert case["confidence"] == min(given, key=rank.__getitem__), (scenario.name, case["id"])


def test_nothing_known_follows_from_no_strong_case(mcp):
    asked = [{"symptoms": s.symptoms, "text": s.log, **s.context} for s in SCENARIOS] + [
        {"symptoms": "the office printer is out of toner and jams on every page"},
        {"symptoms": "slow"},
        {"text": "Traceback (most recent call last):\nKeyError: 'x'"},
        {"symptoms": "NCCL", "job": "inference"},
    ]
    for arguments in asked:
        answer = mcp.ok("triage", **arguments)
        strong = any(case["confidence"] == "strong" for case in answer["cases"])
        assert answer["known"] is strong, arguments
        assert (triage_module.NOTHING_KNOWN in answer["notes"]) is (not strong), arguments


FROZE = "training froze mid-run with every rank at 100% GPU utilisation and no error"


def ranked(answer: dict) -> list[str]:
    return [case["id"] for case in answer["cases"]]


def hardware_twins(import_synthetic) -> tuple[str, str]:
    """Two cases telling one story (a made-up word keeps other cases out), one on GB200 (a
    Grace, Arm host), one on A100 80GB: only the context can tell them apart."""
    story = "The optimizer step froze on every rank at 100% GPU utilisation with no error: quokkaplex"
    twins = []
    for number, accelerator in ((51, "GB200"), (52, "A100 80GB")):
        case = synthetic_case(number, seed=51, title=f"{story} ({accelerator})", summary=story)
        case["environment"] = {**case["environment"], "accelerator": accelerator, "workload": "training"}
        twins.append(case)
    arm, a100 = import_synthetic(*twins)
    return arm, a100


TWIN_QUERY = "training froze on every rank at 100% utilisation quokkaplex"


def triage_tool(**arguments) -> dict:
    """The tool's function itself: the in-memory server's thread does not see this test's
    uncommitted cases."""
    from mcp_server.triage_tool import triage

    return triage(**arguments).model_dump(mode="json")


def test_a_case_whose_hardware_contradicts_the_context_is_ranked_down(db, client, import_synthetic):
    arm, a100 = hardware_twins(import_synthetic)
    on_a100 = triage_tool(symptoms=TWIN_QUERY, job="training", accelerator="A100")
    assert ranked(on_a100)[:2] == [a100, arm]
    by_id = {case["id"]: case for case in on_a100["cases"]}
    assert by_id[a100]["why"]["context"] == ["training job", "same accelerator: A100"]
    assert by_id[arm]["why"]["context"] == [
        "training job",
        "the case ran on GB200, an Arm (Grace) host, not A100",
    ]
    on_gb200 = triage_tool(symptoms=TWIN_QUERY, job="training", accelerator="NVIDIA GB200 NVL72")
    order = ranked(on_gb200)
    assert order[0] == arm and order.index(arm) < order.index(a100)
    on_gb200_by_id = {case["id"]: case for case in on_gb200["cases"]}
    assert on_gb200_by_id[arm]["why"]["context"] == ["training job", "same accelerator: NVIDIA GB200 NVL72"]
    assert on_gb200_by_id[a100]["why"]["context"][-1] == (
        "the case ran on A100 80GB, not on an Arm (Grace) host like GB200"
    )
    on_amd = triage_tool(symptoms=TWIN_QUERY, job="training", accelerator="MI300X")
    assert {case["why"]["context"][-1] for case in on_amd["cases"][:2]} == {
        "the case ran on NVIDIA GB200, not AMD MI300X",
        "the case ran on NVIDIA A100 80GB, not AMD MI300X",
    }
    # The API weighs the context the same way (one function).
    body = {"symptoms": TWIN_QUERY, "job": "training", "accelerator": "A100"}
    api = client.post("/api/triage", body, content_type="application/json").json()
    assert ranked(api)[:2] == [a100, arm]
    assert {case["id"]: case["why"] for case in api["cases"]}[arm] == by_id[arm]["why"]


def test_another_generation_of_the_same_vendor_counts_less_against_a_case(db):
    chips = triage_module.Chips()
    a100, h100, gb200, mi300x = (
        chips.named(n) for n in ("A100 80GB", "H100", "GB200", "AMD Instinct MI300X")
    )
    assert a100 == triage_module.Chip("A100 80GB", "NVIDIA", "a100", False)
    assert gb200 is not None and gb200.arm_hosted and mi300x is not None and mi300x.vendor == "AMD"
    assert chips.named("8x H100 SXM nodes") == h100
    assert chips.named("a Raspberry Pi") is None
    assert triage_module.OTHER_VENDOR <= triage_module.OTHER_PLATFORM < triage_module.OTHER_FAMILY < 1


def test_a_scale_in_the_words_is_context_not_words():
    assert triage_module.read_scale("512-GPU training job hangs") == ("GPU training job hangs", 512)
    assert triage_module.read_scale("hangs on 1,024 GPUs but not on 8 GPUs") == (
        "hangs on GPUs but not on GPUs",
        1024,
    )
    assert triage_module.read_scale("2k accelerators lose NVLink") == ("accelerators lose NVLink", 2000)
    assert triage_module.read_scale("tensor parallel 4 stops, Xid 79") == (
        "tensor parallel 4 stops, Xid 79",
        None,
    )


@pytest.mark.parametrize(
    "symptoms",
    ["Xid 79 GPU fell off the bus", "xid: 48 GPU double bit ECC", "NCCL error 12 GPU", "exit code 1 GPU job"],
)
def test_a_codes_number_before_gpu_is_no_scale(symptoms):
    # "Xid 79 GPU" was read as 79 accelerators: 79 left the search, so IL-0523 (Xid 79) lost
    # its strong label in triage while search called it strong.
    assert triage_module.read_scale(symptoms) == (symptoms, None)
    assert triage_module.read_scale(f"job on 8 GPUs, {symptoms}") == (f"job on GPUs, {symptoms}", 8)


def test_triage_and_search_agree_on_an_xid_line(mcp):
    found = search_cases(query="Xid 79 GPU fell off the bus", limit=3)
    assert (found.hits[0].case.id, found.hits[0].confidence) == ("IL-0523", "strong")
    result = mcp.ok("triage", symptoms="Xid 79 GPU fell off the bus")
    assert (result["cases"][0]["id"], result["cases"][0]["confidence"]) == ("IL-0523", "strong")


def test_the_issue_s_own_scenario_puts_the_node_replacement_case_first(mcp):
    """Issue 16's words, as written: the 512-GPU GB200 case IL-0497 shares "512-GPU" and
    "training ... hangs" with them; the scale is read as context and the A100 job's answer is
    IL-0429 (OPT-175B: training hung after a replacement node joined)."""
    scenario = SCENARIOS[0]
    assert scenario.symptoms.startswith('512-GPU training job hangs with "Watchdog caught')
    searched = mcp.ok("search_incidents", query=scenario.symptoms)
    # Search reads the scale as context too (`scale_words`): searched as a word, the rare
    # "512" put IL-0497 first on SQLite (FTS5's bm25 weighs it; PostgreSQL's ts_rank did not).
    assert searched["hits"][0]["id"] == "IL-0429"
    assert "Read 512 as the job's scale, not as a word to search." in searched["notes"]
    for context in (scenario.context, {}):
        answer = mcp.ok("triage", symptoms=scenario.symptoms, text=scenario.log, **context)
        assert answer["cases"][0]["id"] == "IL-0429", context
        assert answer["cases"][0]["confidence"] == "strong" and answer["known"] is True
        assert "IL-0497" not in ranked(answer)
        assert "The words' scale (512 accelerators) was weighed as context, not searched." in answer["notes"]
    assert "similar scale: 1024 accelerators" in answer["cases"][0]["why"]["context"]


def test_an_accelerator_the_vocabulary_does_not_know_is_said(db, import_synthetic):
    arm, a100 = hardware_twins(import_synthetic)
    unknown = triage_tool(symptoms=TWIN_QUERY, job="training", accelerator="Raspberry Pi 5")
    assert triage_module.unknown_accelerator("Raspberry Pi 5") in unknown["notes"]
    note = triage_module.unknown_accelerator(" Raspberry Pi 5 ")
    assert "'Raspberry Pi 5' is not in the vocabulary" in note
    # Neither twin is ranked down for a chip nobody can compare.
    assert set(ranked(unknown)[:2]) == {arm, a100}
    known = triage_tool(symptoms=TWIN_QUERY, job="training", accelerator="8x H100 SXM")
    assert not any("not in the vocabulary" in note for note in known["notes"])


def test_a_blank_accelerator_is_no_context(db, import_synthetic):
    hardware_twins(import_synthetic)
    blank = triage_tool(symptoms=TWIN_QUERY, job="training", accelerator="   ")
    assert not any("not in the vocabulary" in note for note in blank["notes"])


def test_a_case_points_at_the_log_lines_that_carry_its_signature(mcp, client):
    # Twelve start-up lines naming NCCL come before the error: cut after sorting by number,
    # every case pointed at lines 1 to 10 (a walkthrough's IB log) and none at its error.
    banner = [f"node07:1234:1400 [0] NCCL INFO Channel {i:02d}/16 : 0 1 2 3 4 5 6 7" for i in range(12)]
    error = (
        "node07:1234:1455 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer"
        " 10.0.0.8<58213> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_0"
    )
    log = "\n".join([*banner, error, "[rank3]: Watchdog caught collective operation timeout"])
    body = {"text": log, "job": "training"}
    answer = client.post("/api/triage", body, content_type="application/json").json()
    first = answer["cases"][0]
    assert first["id"] in ("IL-0450", "IL-0485")
    numbers = first["why"]["line_numbers"]
    assert 13 in numbers and numbers == sorted(numbers)
    assert mcp.ok("triage", text=log, job="training")["cases"][0]["why"]["line_numbers"] == numbers


def test_the_log_is_text_as_match_log_names_it_and_the_former_name_points_there(mcp):
    # One name for a pasted log at every tool and at POST /api/match: `text`. The former
    # `log` is refused (tools/list stays within its budget without a second name), saying it.
    assert mcp.ok("triage", text="NCCL WARN Timeout")["lines_read"] == 1
    assert mcp.error("triage", log="NCCL WARN Timeout").startswith(
        "Unknown argument 'log' (did you mean 'text'?); triage takes: symptoms, text, job,"
    )
