"""The configuration table (docs/configuration.md, moved from the README on 8 December 2026)
lists every environment variable the settings read, and only those: CACHE_URL,
DATABASE_REPLICA_URLS, the throttle rates, API_NUM_PROXIES and others were
read by incidentlib/settings.py but named only in scattered prose."""

from __future__ import annotations

import re

from django.conf import settings

ROOT = settings.BASE_DIR
# env.<method>("NAME" ...) in the settings, self.<method>("NAME" ...) in the reader itself (ENV_FILE).
READ = re.compile(r"\b(?:env|self)\.\w+\(\s*\"([A-Z][A-Z0-9_]*)\"")


def variables_read() -> set[str]:
    sources = [ROOT / "incidentlib" / "settings.py", ROOT / "incidentlib" / "environment.py"]
    return {name for path in sources for name in READ.findall(path.read_text(encoding="utf-8"))}


def variables_in_readme_table() -> list[str]:
    readme = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = readme[readme.index("# Configuration\n") :]
    section = section[: section.index("\n## ", 1)]
    table = section[section.index("| variable |") :]
    table = table[: table.index("\n\n")]
    return re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", table, flags=re.MULTILINE)


def test_the_readme_table_lists_every_variable_the_settings_read_and_no_other():
    listed = variables_in_readme_table()
    assert len(listed) == len(set(listed)), "a variable is listed twice"
    assert sorted(listed) == sorted(variables_read())


def test_the_variables_the_walkthrough_missed_are_found_in_the_settings():
    assert {
        "CACHE_URL",
        "DATABASE_REPLICA_URLS",
        "API_THROTTLE_RATE",
        "API_HEAVY_THROTTLE_RATE",
        "API_NUM_PROXIES",
        "BEHIND_TLS_PROXY",
        "PROPOSAL_THROTTLE_RATE",
        "EMBEDDING_CACHE_DIR",
        "STORE_CACHE",
        "CASE_SCHEMA_PATH",
        "ENV_FILE",
    } <= variables_read()
