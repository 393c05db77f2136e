"""A rich log (many specific signatures, every hit scoring well) is triaged in match_log's
order, moved only by the context: no hit counts "in full" and ties the others by id."""

from __future__ import annotations

from incidents.models import Case

# An NCCL watchdog timeout over InfiniBand, as a 12-line paste: each of the top log hits
# scores well past `LOG_SCORE_FULL`, where the old cap made them all count 1.0.
RICH_LOG = """\
[rank12]:[E ProcessGroupNCCL.cpp:616] [Rank 12] Watchdog caught collective operation timeout: \
WorkNCCL(SeqNum=48213, OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)=1800000) \
ran for 1800000 milliseconds before timing out.
[rank12]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 12] Timeout at NCCL work: 48213, last enqueued NCCL \
work: 48214, last completed NCCL work: 48212.
node03:2211:2298 [4] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer \
10.1.0.7<55017> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=0 len=0 vendor err 129 (Recv)
node03:2211:2298 [4] NCCL INFO transport/net.cc:1134 -> 6
node03:2211:2298 [4] NCCL INFO proxy.cc:1370 -> 6
[rank12]:[E ProcessGroupNCCL.cpp:630] [Rank 12] Some NCCL operations have failed or timed out. Due to \
the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[rank12]:[E ProcessGroupNCCL.cpp:636] [Rank 12] To avoid data inconsistency, we are taking the entire \
process down.
[rank12]:[E ProcessGroupNCCL.cpp:1595] [PG 0 Rank 12] Process group watchdog thread terminated with \
exception: [Rank 12] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48213, \
OpType=ALLREDUCE) ran for 1800000 milliseconds before timing out.
Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most \
recent call first):
terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG 0 Rank 12] Process group watchdog thread terminated with exception
Fatal Python error: Aborted
"""


def ids(hits: list[dict]) -> list[str]:
    return [hit["id"] for hit in hits]


def test_a_rich_log_alone_is_triaged_in_match_log_s_order(mcp, client):
    matched = mcp.ok("match_log", text=RICH_LOG, limit=10)["hits"]
    # The premise: several hits score past the old cap, so a cap would have tied them.
    assert sum(hit["score"] >= 8 for hit in matched) >= 5
    api = client.post("/api/triage", {"text": RICH_LOG}, content_type="application/json")
    assert ids(api.json()["cases"]) == ids(matched)[:5]
    # The tool may cut the list to its byte budget (and says so); the order is the same.
    triaged = ids(mcp.ok("triage", text=RICH_LOG)["cases"])
    assert len(triaged) >= 3 and triaged == ids(matched)[: len(triaged)]


def workload(case_id: str) -> str | None:
    term = Case.objects.get(id=case_id).workload
    return term.slug if term else None


def test_a_training_context_moves_the_log_hits_without_reordering_them(db, client):
    reading = client.post("/api/match", {"text": RICH_LOG, "limit": 10}, content_type="application/json")
    matched = ids(reading.json()["results"])
    training = [case_id for case_id in matched if workload(case_id) == "training"]
    body = {"text": RICH_LOG, "job": "training"}
    triaged = ids(client.post("/api/triage", body, content_type="application/json").json()["cases"])
    # Confidence first (a strong case of another workload before a possible training one),
    # then match_log's best training hits lead, and the training cases keep its order: none
    # is left out for one it ranks lower (the cap had kept IL-0431 and dropped IL-0615).
    strong = [h["id"] for h in reading.json()["results"] if h["confidence"] == "strong"]
    assert triaged[: len(strong)] == strong
    rest = [case_id for case_id in triaged[len(strong) :] if case_id in training]
    assert rest[:2] == [case_id for case_id in training if case_id not in strong][:2]
    in_training = [case_id for case_id in triaged if case_id in training]
    assert in_training == training[: len(in_training)] and len(in_training) >= 3
