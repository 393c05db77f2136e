"""Calls and bytes an assistant spends on the five on-call scenarios of
`tests/mcp/scenarios.py`, through the MCP server in process (`Client(server)`, no model).

- before: the best path the seed's prompt prescribed: match_log on the log,
  search_incidents on the symptoms, then get_incident on the three most promising ids with
  the fields a triage needs (5 calls);
- after: one `triage` call (when the server has it).
Bytes are the tool results' text content, what a model reads. Run it from a checkout:
`python eval/mcp_walkthrough.py` (it imports the fixtures into a throw-away SQLite file);
run it with PYTHONPATH pointing at another checkout to measure that one's server.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # for tests.mcp.scenarios (this checkout's)

FIELDS = ["summary", "symptoms", "root_cause", "remediation", "checks", "lessons"]


def main() -> None:
    scratch = tempfile.mkdtemp()
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch}/walkthrough.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")
    import anyio
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from mcp import Client

    from mcp_server.server import build_server
    from tests.mcp.scenarios import SCENARIOS

    call_command("migrate", verbosity=0)
    fixtures = Path(settings.BASE_DIR) / "fixtures"
    call_command("import_cases", str(fixtures / "cases"), vocab=[str(fixtures / "vocab.json")], verbosity=0)

    def text_bytes(result) -> int:
        return sum(len(block.text.encode()) for block in result.content if block.type == "text")

    async def walk() -> list[dict]:
        rows = []
        async with Client(build_server()) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            for scenario in SCENARIOS:
                logged = await client.call_tool("match_log", {"text": scenario.log})
                searched = await client.call_tool("search_incidents", {"query": scenario.symptoms})
                ids: list[str] = []
                for hit in logged.structured_content["hits"][:2] + searched.structured_content["hits"][:3]:
                    if hit["id"] not in ids:
                        ids.append(hit["id"])
                documents = [
                    await client.call_tool("get_incident", {"id": case_id, "fields": FIELDS})
                    for case_id in ids[:3]
                ]
                before = [logged, searched, *documents]
                row = {
                    "scenario": scenario.name,
                    "before_calls": len(before),
                    "before_bytes": sum(text_bytes(r) for r in before),
                    "before_found": scenario.expected in ids[:3],
                }
                if "triage" in names:
                    answer = await client.call_tool(
                        "triage", {"symptoms": scenario.symptoms, "log": scenario.log, **scenario.context}
                    )
                    row |= {
                        "after_calls": 1,
                        "after_bytes": text_bytes(answer),
                        "after_first": answer.structured_content["cases"][0]["id"] == scenario.expected,
                    }
                rows.append(row)
        return rows

    rows = anyio.run(walk)
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
