"""Content safety in a real browser (issue 12 point 3): a case whose every Markdown and text
field carries scripts, javascript: / vbscript: / data: links (mixed case, entity-encoded),
event-handler attributes, SVG payloads and HTML comments is shown on every page that shows
a case: its own page, the list, search snippets, the feeds, another case's related and
similar list, the log-match page, an error code's page (its checks through the Markdown
filter), an upstream record's page, the "am I affected?" answer, and, for a signed-in
editor, the admin's preview and change form of the case. Nothing executes, and no such markup reaches the DOM.

Each page is opened twice: with the site's Content-Security-Policy, and with the browser told
to ignore it (`bypass_csp`), so that the sanitising alone is shown to hold.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from urllib.request import urlopen

import pytest

from incidents.services import import_case_files
from incidents.workflow import EDITOR
from tests.conftest import fixture_ids, load_fixture
from tests.editorial.conftest import make_user
from tests.factories import write_cases

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE_ID = "IL-0999"
MARKER = "zqxhostile"  # a word only this case uses, for search and snippets

PAYLOADS = [
    "<script>alert('script')</script>",
    "<SCRIPT SRC=//127.0.0.1:9/x.js></SCRIPT>",
    "<img src=x onerror=\"alert('img')\">",
    "<a href=\"javascript:alert('js')\">js link</a>",
    "<a href=\"JaVaScRiPt:alert('mixed')\">mixed case</a>",
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;'
    "alert('entities')\">entities</a>",
    "<a href=\"jav&#x09;ascript:alert('tab')\">tab</a>",
    "<a href=\"  javascript:alert('space')\">space</a>",
    "<a href=\"vbscript:msgbox('vb')\">vb</a>",
    "<a href=\"VBScript:msgbox('vb2')\">vb mixed</a>",
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgnZGF0YScpPC9zY3JpcHQ+">data</a>',
    "<a href=\"DaTa:text/html,<script>alert('data2')</script>\">data mixed</a>",
    "[markdown js](javascript:alert('md'))",
    "[markdown data](data:text/html,alert('mdd'))",
    "[markdown entity](&#x6A;avascript:alert('mde'))",
    "<javascript:alert('autolink')>",
    "![image](javascript:alert('mdimg'))",
    '<svg><a><set attributeName="href" to="javascript:alert(\'svg-set\')"/><text y="20">svg</text></a></svg>',
    '<svg onload="alert(\'svg-onload\')"><animate onbegin="alert(\'animate\')" attributeName="x"/></svg>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert('mxss')>"
    "</style></mglyph></table></mtext></math>",
    "<!-- <script>alert('comment')</script> --> after a comment",
    "<!--><img src=x onerror=alert('comment2')>-->",
    '<div onmouseover="alert(\'hover\')" style="position:fixed;inset:0">hover me</div>',
    "<iframe src=\"javascript:alert('iframe')\"></iframe>",
    "<object data=\"javascript:alert('object')\"></object>",
    "<form action=\"javascript:alert('form')\"><button>go</button></form>",
    "<details open ontoggle=\"alert('toggle')\">x</details>",
    "<base href=\"javascript:alert('base')//\">",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(\'meta\')">',
    '<p title=""><img src=x onerror=alert(\'attr-break\')>">',
]
# `NCCL_ZQXHOSTILE`: a setting only this case names, so the hostile log finds it first.
MARKDOWN = f"{MARKER} text around the payloads, NCCL_ZQXHOSTILE.\n\n" + "\n\n".join(PAYLOADS)
SHORT = "<img src=x onerror=alert('short')> <script>alert('s')</script> javascript:alert('p')"


def hostile_document() -> dict:
    """IL-0428 (so that it is IL-0428's closest neighbour) with every text field hostile.

    The summary, symptoms and root cause keep IL-0428's own words before the payloads:
    similar cases also compare what the texts mean, and payloads alone mean nothing."""
    doc = copy.deepcopy(load_fixture("IL-0428"))
    original = {
        "summary": doc["summary"],
        "symptoms": doc["symptoms"]["description"],
        "cause": doc["root_cause"]["description"] or "",
    }
    doc["id"] = HOSTILE_ID
    # The newest date of the library (its id wins the tie), so that every list of latest cases
    # (the case list, a topic's, a term's, the feeds) shows it on its first page.
    doc["published"] = max(load_fixture(i)["published"] for i in fixture_ids())
    doc["title"] = f"{MARKER} <script>alert('title')</script><img src=x onerror=alert('t')> title"
    doc["organization"] = f"<svg onload=alert('org')> Org {MARKER}"
    doc["summary"] = f"{original['summary']}\n\n{MARKDOWN}"
    doc["facts"].update(scope=SHORT, users_affected=SHORT, region=SHORT, severity="high")
    doc["environment"].update(cluster=SHORT, accelerator="<b onclick=alert('acc')>GPU</b>")
    doc["symptoms"]["description"] = f"{original['symptoms']}\n\n{MARKDOWN}"
    # The tags the pages below list it under (the NCCL timeout feed, the match page's log).
    doc["symptoms"]["tags"] = list(
        dict.fromkeys([*doc["symptoms"]["tags"], "NCCL timeout", "NCCL error", "Xid error"])
    )
    doc["root_cause"].update(description=f"{original['cause']}\n\n{MARKDOWN}", trigger=SHORT)
    doc["detection"] = MARKDOWN
    for field in ("remediation", "action_items", "lessons", "checks"):
        doc[field] = [MARKDOWN, SHORT]
    table = doc["scale_tables"][0]
    table["caption"] = SHORT
    table["columns"][0].update(label=SHORT, unit="<i onmouseover=alert('unit')>u</i>")
    for row in table["rows"]:
        row["note"] = SHORT
        row["values"]["params"] = "<img src=x onerror=alert('cell')>"
    doc["sources"] = [{"title": SHORT, "url": "https://example.org/a?<script>=1&x=javascript:alert(1)"}]
    doc["related"] = ["IL-0428"]
    # So that the code page (its checks through the Markdown filter, its case cards), the
    # upstream-record page and "am I affected?" (the workaround through the Markdown
    # filter, the fixed-in release) show it: the newest case citing NVIDIA/nccl#1116 and
    # holding NCCL 2.19.3, its record is the one the record page describes.
    doc["symptoms"]["error_codes"] = list(dict.fromkeys([*doc["symptoms"].get("error_codes", []), "Xid 79"]))
    doc["references"] = [
        {
            "kind": "issue",
            "id": "NVIDIA/nccl#1116",
            "url": "https://github.com/NVIDIA/nccl/issues/1116",
            "state": "closed",
            "fixed_in": "<img src=x onerror=alert('fixed')> 2.20.3",
        }
    ]
    doc["affected"] = [{"component": "NCCL", "versions": ["2.19.3"]}]
    return doc


LOG = "\n".join(
    [
        "NCCL WARN Timeout NCCL_ZQXHOSTILE=1 <script>alert('log')</script>",
        "[rank3] Watchdog caught collective operation timeout <img src=x onerror=alert('log2')>",
        "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus <svg onload=alert('log3')>",
        "<a href=\"javascript:alert('log4')\">x</a>",
    ]
)

# Anything that could run script or navigate: checked over the whole document of each page.
DOM_CHECK = """() => {
  const bad = [];
  const dangerousUrl = /^\\s*(javascript|vbscript|data):/i;
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on')) bad.push(`${el.tagName} ${name}`);
      if (['href', 'src', 'action', 'formaction', 'data', 'xlink:href', 'to', 'from', 'values'].includes(name)
          && dangerousUrl.test(attr.value)) bad.push(`${el.tagName} ${name}=${attr.value}`);
      // The admin's autocomplete widget (select2) sizes its box through the style attribute.
      const widgetWidth = el.classList.contains('select2-container') && /^width: \\d+px;$/.test(attr.value);
      if (name === 'style' && el.closest('main') && !widgetWidth) {
        bad.push(`${el.tagName} style=${attr.value}`);
      }
    }
  }
  for (const s of document.querySelectorAll('script')) {
    if (!s.src || new URL(s.src).origin !== location.origin) bad.push(`script ${s.src || 'inline'}`);
  }
  const foreign = 'main iframe, main object, main embed, main form[action^="javascript"], main set,'
    + ' main animate, main math, main base, main meta, main style, main link, main svg';
  for (const el of document.querySelectorAll(foreign)) bad.push(`element ${el.tagName}`);
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_COMMENT);
  // The admin's base template marks its content block with two comments of its own.
  const adminMarks = ['Content', 'END Content'];
  while (walker.nextNode()) {
    const comment = walker.currentNode.textContent;
    if (!adminMarks.includes(comment.trim())) bad.push(`comment ${comment.slice(0, 30)}`);
  }
  return bad;
}"""


def visit(
    browser, site: str, path: str, *, bypass_csp: bool, log: str | None = None, login: str | None = None
) -> tuple:
    """Open `path` (signed in through the admin's login form as user `login`, if given);
    return (dialogs raised, dangerous DOM nodes, page text)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=bypass_csp)
    dialogs: list[str] = []
    page = context.new_page()

    def on_dialog(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    if login is not None:
        page.goto(f"{site}/admin/login/?next={path}")
        sign_in(page, login, path)
    else:
        page.goto(site + path)
    if log is not None:
        page.get_by_label("Log text").fill(log)
        page.get_by_role("button", name="Find matching cases").click()
        page.wait_for_url("**/match/")
    # Hover and click across the page: handlers bound to mouse events would fire now.
    for y in range(50, 900, 150):
        page.mouse.move(640, y)
    page.mouse.click(5, 895)
    page.wait_for_timeout(300)  # let any timer-based payload fire
    found = page.evaluate(DOM_CHECK)
    text = page.inner_text("body")
    context.close()
    return dialogs, found, text


@pytest.fixture
def hostile_site(site, tmp_path) -> str:
    # Organizations and accelerators are closed vocabularies, so the hostile names arrive as
    # terms of their own (every field hostile), as a user's own vocabulary file would bring them.
    document = hostile_document()
    vocab = tmp_path / "hostile-vocab.json"
    vocab.write_text(
        json.dumps(
            {
                "organizations": [
                    {
                        "name": document["organization"],
                        "description": f"<img src=x onerror=alert('orgdesc')> {MARKER}",
                        "synonyms": [],
                    }
                ],
                "accelerators": [
                    {
                        "name": document["environment"]["accelerator"],
                        "vendor": f"<b onmouseover=alert('vendor')>Vendor</b> {MARKER}",
                        "description": f"<svg onload=alert('accdesc')> {MARKER}",
                        "synonyms": [],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    import_case_files(paths=write_cases(tmp_path / "cases", [document]), vocab_paths=[vocab])
    return site


PAGES = [
    (f"/cases/{HOSTILE_ID}", None),
    ("/cases/", None),  # a plain list, newest first
    ("/topics/networking", None),  # a topic's latest cases
    ("/vocab/symptom/xid-error", None),  # a term's cases
    (f"/cases/?q={MARKER}", None),  # search results with snippets
    ("/cases/IL-0428", None),  # its related and similar cases
    ("/match/", LOG),  # log matching, with a hostile log too
    ("/codes/xid-79", None),  # an error code's checks (Markdown) and cases
    ("/refs/?ref=NVIDIA/nccl%231116", None),  # an upstream record and the cases citing it
    ("/affected/?versions=NCCL%202.19.3", None),  # "am I affected?": workaround, fixed-in
]


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-csp", "csp-ignored"])
def test_no_payload_runs_or_reaches_the_dom(browser, hostile_site, bypass_csp):
    for path, log in PAGES:
        dialogs, found, text = visit(browser, hostile_site, path, bypass_csp=bypass_csp, log=log)
        assert dialogs == [], (path, dialogs)
        assert found == [], (path, found)
        assert MARKER in text, f"{path} does not show the hostile case"
        if path != f"/cases/{HOSTILE_ID}" and log is None:
            assert f"{HOSTILE_ID}" in text, f"{path} does not list the hostile case"


def test_the_hostile_case_appears_where_it_should(browser, hostile_site):
    # Guards the test above: each page really showed the hostile case's hostile fields.
    _, _, own = visit(browser, hostile_site, f"/cases/{HOSTILE_ID}", bypass_csp=False)
    assert "alert('script')" in own or "alert(" in own  # shown as text, not run
    _, _, related = visit(browser, hostile_site, "/cases/IL-0428", bypass_csp=False)
    assert f"{MARKER}" in related
    _, _, matched = visit(browser, hostile_site, "/match/", bypass_csp=False, log=LOG)
    assert HOSTILE_ID in matched and "alert('log')" in matched
    # The code page's checks and the workaround went through the Markdown filter (which
    # drops scripts and keeps a link's words without its href); the record's fixed-in
    # release is plain text, shown escaped.
    _, _, code = visit(browser, hostile_site, "/codes/xid-79", bypass_csp=False)
    assert f"{MARKER} text around the payloads" in code and "markdown js" in code
    _, _, record = visit(browser, hostile_site, "/refs/?ref=NVIDIA/nccl%231116", bypass_csp=False)
    assert "alert('fixed')" in record and HOSTILE_ID in record
    _, _, affected = visit(browser, hostile_site, "/affected/?versions=NCCL%202.19.3", bypass_csp=False)
    assert "fixed in <img src=x onerror=alert('fixed')> 2.20.3" in affected
    assert "First remediation step of the case:" in affected
    assert f"{MARKER} text around the payloads" in affected
    assert "markdown js" in affected


# What an editor sees of the case: the preview and the change form (every field in an input).
ADMIN_PAGES = [f"/admin/incidents/case/{HOSTILE_ID}/preview/", f"/admin/incidents/case/{HOSTILE_ID}/change/"]


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-csp", "csp-ignored"])
def test_the_admin_preview_and_change_form_stay_inert(browser, hostile_site, bypass_csp):
    make_user("edna", EDITOR)
    for path in ADMIN_PAGES:
        dialogs, found, text = visit(browser, hostile_site, path, bypass_csp=bypass_csp, login="edna")
        assert dialogs == [], (path, dialogs)
        assert found == [], (path, found)
        # The page really carried the hostile case: its marker, and its payloads as text.
        assert MARKER in text, f"{path} does not show the hostile case"
        assert HOSTILE_ID in text and "alert(" in text, path  # payloads shown as text


class _Dangerous(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "svg", "math", "style", "base", "meta", "form"):
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"{tag} {name}")
            if value and re.match(r"\s*(javascript|vbscript|data):", value, re.I):
                self.found.append(f"{tag} {name}={value}")

    def handle_comment(self, data):
        self.found.append("comment")


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-csp", "csp-ignored"])
def test_feeds_carry_the_case_as_inert_html(browser, hostile_site, bypass_csp):
    for path in ("/feeds/cases.atom", "/feeds/topics/interconnect.atom", "/feeds/symptoms/nccl-timeout.atom"):
        with urlopen(hostile_site + path) as response:  # noqa: S310 - the live test server
            feed = ET.fromstring(response.read())
        atom = "{http://www.w3.org/2005/Atom}"
        entries = [e for e in feed.findall(f"{atom}entry") if MARKER in (e.findtext(f"{atom}title") or "")]
        assert len(entries) == 1, path
        parser = _Dangerous()
        parser.feed(entries[0].findtext(f"{atom}summary") or "")
        assert parser.found == [], (path, parser.found)
        # A browser opening the feed runs nothing either.
        dialogs, _, _ = visit(browser, hostile_site, path, bypass_csp=bypass_csp)
        assert dialogs == [], (path, dialogs)
