"""Synthetic case documents for tests and benchmarks (never written to fixtures/)."""

from __future__ import annotations

import copy
import datetime
import json
import random
from pathlib import Path
from typing import Any

TOPICS = [
    "interconnect",
    "training-hang",
    "inference-outage",
    "checkpoint-storage",
    "scheduler",
    "gpu-errors",
]
WORKLOADS = ("training", "inference", None)
SYMPTOMS = [
    "Training hang",
    "NCCL timeout",
    "Xid error",
    "Loss spike",
    "Checkpoint failure",
    "Service outage",
    "Out of memory",
    "Throughput degradation",
]
ROOT_CAUSES = ["Hardware fault", "Software bug", "Configuration error", "Network fault", "Root cause unknown"]
COMPONENTS = ["NCCL", "PyTorch", "InfiniBand", "Slurm", "Kubernetes", "DeepSpeed", "CUDA"]
WORDS = (
    "allreduce rank straggler watchdog fabric switch cable firmware driver kernel "
    "checkpoint shard bucket latency replica router quota scheduler pod node"
).split()


# A valid proposal of a new case, as the form and `POST /api/proposals/` take it.
NEW_PROPOSAL = {
    "kind": "new",
    "title": "Checkpoint writes stalled a 512-GPU job for an hour",
    "organization": "Meta AI",
    "published": "2025-03-04",
    "text": "Writes to the shared file system blocked every rank during a checkpoint.",
    "topic": "checkpoint-storage",
    "source_urls": "https://example.org/blog/checkpoint-stall",
}


def synthetic_case(number: int, *, seed: int | None = None, **overrides: Any) -> dict[str, Any]:
    """A schema-valid case document `IL-9xxxxx` with reproducible pseudo-random content."""
    rng = random.Random(number if seed is None else seed)
    words = " ".join(rng.choice(WORDS) for _ in range(40))
    document: dict[str, Any] = {
        "id": f"IL-{900000 + number}",
        "title": f"Synthetic case {number}: {rng.choice(WORDS)} failure on {rng.randint(8, 4096)} GPUs",
        "organization": rng.choice(["Meta", "OpenAI", "Community report"]),
        "published": (datetime.date(2020, 1, 1) + datetime.timedelta(days=number % 2000)).isoformat(),
        "occurred": None,
        "status": "published",
        "topics": rng.sample(TOPICS, 2),
        "summary": f"Synthetic summary. {words}",
        "facts": {
            "severity": rng.choice(["high", "low", None]),
            "scope": None,
            "users_affected": None,
            "region": None,
            "time_to_detect": None,
            "time_to_resolve": f"PT{rng.randint(1, 90)}M",
        },
        "environment": {
            "cluster": None,
            "accelerator": "NVIDIA H100",
            "accelerator_count": rng.randint(8, 4096),
            "node_count": None,
            "components": rng.sample(COMPONENTS, 2),
            "workload": WORKLOADS[number % len(WORKLOADS)],
        },
        "symptoms": {"description": f"Operators saw {words[:80]}", "tags": rng.sample(SYMPTOMS, 2)},
        "scale_tables": [
            {
                "caption": "Synthetic scales",
                "columns": [{"key": "gpus", "label": "GPUs", "unit": None}],
                "rows": [
                    {"values": {"gpus": 8}, "outcome": "worked", "note": None},
                    {"values": {"gpus": 512}, "outcome": "failed", "note": "synthetic"},
                ],
            }
        ],
        "root_cause": {"category": rng.choice(ROOT_CAUSES), "description": None, "trigger": None},
        "detection": None,
        "remediation": ["Restart the job."],
        "action_items": [],
        "lessons": [],
        "checks": ["Check the synthetic counter."],
        "sources": [{"title": "Synthetic source", "url": f"https://example.org/case/{number}"}],
        "related": [],
    }
    for key, value in overrides.items():
        document[key] = copy.deepcopy(value)
    return document


def write_cases(directory: Path, documents: list[dict[str, Any]]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for document in documents:
        path = directory / f"{document['id']}.json"
        path.write_text(json.dumps(document, indent=2), encoding="utf-8")
        paths.append(path)
    return paths
