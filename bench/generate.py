"""Synthetic case documents for `make bench` (never written to fixtures/).

Each case draws its tags, components, root cause and topics from the bundled vocabulary and
its text from a fixed word list plus a few failure tokens, so search, log matching and
similarity have realistic work to do. Reproducible: case n is always the same document.

    python bench/generate.py 2000 /tmp/bench-cases    # writes IL-8xxxxx.json files
"""

from __future__ import annotations

import datetime
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VOCAB = json.loads((ROOT / "fixtures" / "vocab.json").read_text())

WORDS = (
    "allreduce rank straggler watchdog fabric switch cable firmware driver kernel checkpoint "
    "shard bucket latency replica router quota scheduler pod node gradient optimizer loss "
    "tensor pipeline parallel collective timeout restart hang memory throughput batch "
    "dataset loader storage network link port thermal power rollout config cluster job "
    "worker queue lock retry deadline token sampling cache eviction leader election"
).split()
TOKENS = [
    "Xid 79",
    "Xid 48",
    "Xid 74",
    "NCCL_IB_TIMEOUT",
    "cudaErrorIllegalAddress",
    "ncclSystemError",
    "ENOSPC",
    "NODE_FAIL",
    "CUDA out of memory",
    "SIGBUS",
]


ORGANIZATIONS = 40  # synthetic cases are reported by "Bench Org 0" .. "Bench Org 39"


def write_vocabulary(path: Path) -> Path:
    """The bundled vocabulary plus the bench organizations, written to `path` (import's
    organization vocabulary is strict; fixtures/vocab.json is never given bench names)."""
    vocabulary = json.loads(json.dumps(VOCAB))
    vocabulary["organizations"] += [
        {"name": f"Bench Org {n}", "description": "A synthetic reporter of bench cases.", "synonyms": []}
        for n in range(ORGANIZATIONS)
    ]
    path.write_text(json.dumps(vocabulary, indent=1), encoding="utf-8")
    return path


def generate_case(number: int) -> dict:
    rng = random.Random(number)

    def names(key: str, k: int) -> list[str]:
        return [t["name"] for t in rng.sample(VOCAB[key], k)]

    def sentence(n: int) -> str:
        words = [rng.choice(WORDS) for _ in range(n)]
        if rng.random() < 0.3:
            words.insert(rng.randrange(n), rng.choice(TOKENS))
        return " ".join(words).capitalize() + "."

    def paragraph(sentences: int) -> str:
        return " ".join(sentence(rng.randint(8, 20)) for _ in range(sentences))

    return {
        "id": f"IL-{800000 + number}",
        "title": f"Bench case {number}: {sentence(10)}",
        "organization": f"Bench Org {number % ORGANIZATIONS}",
        "published": (datetime.date(2018, 1, 1) + datetime.timedelta(days=number % 2900)).isoformat(),
        "occurred": None,
        "status": "published",
        "topics": [t["slug"] for t in rng.sample(VOCAB["topics"], 2)],
        "summary": paragraph(8),
        "facts": {
            "severity": rng.choice(["critical", "high", "medium", "low", None]),
            "scope": None,
            "users_affected": None,
            "region": None,
            "time_to_detect": None,
            "time_to_resolve": f"PT{rng.randint(1, 96)}H",
        },
        "environment": {
            "cluster": None,
            "accelerator": rng.choice(["NVIDIA H100", "NVIDIA A100", None]),
            "accelerator_count": rng.choice([8, 64, 512, 4096, None]),
            "node_count": None,
            "components": names("components", rng.randint(1, 5)),
        },
        "symptoms": {"description": paragraph(3), "tags": names("symptom_tags", rng.randint(1, 4))},
        "scale_tables": [],
        "root_cause": {
            "category": names("root_causes", 1)[0],
            "description": paragraph(2),
            "trigger": sentence(12),
        },
        "detection": sentence(10),
        "remediation": [sentence(10) for _ in range(3)],
        "action_items": [],
        "lessons": [sentence(12)],
        "checks": [sentence(8)],
        "sources": [{"title": "Synthetic", "url": f"https://example.org/bench/{number}"}],
        "related": [],
    }


def write(count: int, folder: Path, start: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(start, start + count):
        path = folder / f"IL-{800000 + number}.json"
        path.write_text(json.dumps(generate_case(number), indent=1), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    write(int(sys.argv[1]), Path(sys.argv[2]))
