"""Record in an env file (`.env`) where `make run` serves, as `SITE_URL=<url>`.

`PORT=9000 make run` serves on 9000, but a process started without that environment, MCP
over stdio started by a desktop client (README, "Over stdio"), read no PORT and linked its
results to the default http://127.0.0.1:8000. With the URL in `.env`, which settings read,
every process of the checkout links to where the site was last served.

A `SITE_URL` line this script wrote (a loopback `http://127.0.0.1:<port>`) is replaced; any
other is the owner's (a public address) and is kept, with a note on stderr.

Usage: record_site_url.py ENV_FILE URL
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

WRITTEN_HERE = re.compile(r"SITE_URL=http://127\.0\.0\.1:\d+")


def record(env_file: Path, url: str) -> bool:
    """Write `SITE_URL=url` into `env_file` (created if missing), replacing a line this
    script wrote; False, changing nothing, when the file sets another SITE_URL of its own."""
    lines = env_file.read_text(encoding="utf-8").splitlines() if env_file.exists() else []
    ours = [line for line in lines if line.startswith("SITE_URL=")]
    if any(not WRITTEN_HERE.fullmatch(line) for line in ours):
        return False
    kept = [line for line in lines if not line.startswith("SITE_URL=")]
    env_file.write_text("\n".join([*kept, f"SITE_URL={url}"]) + "\n", encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    env_file, url = Path(argv[1]), argv[2].rstrip("/")
    if not record(env_file, url):
        print(f"{env_file} sets its own SITE_URL: kept (this run serves {url})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
