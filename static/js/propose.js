// Proposal form: while the title, text or source URLs are typed, list existing cases that
// look similar (the site's search engine and duplicate check), so duplicates are caught
// before sending. Progressive enhancement: the form works without it.
(() => {
  const form = document.querySelector("form.proposal-form[data-lookalikes]");
  if (!form) return;
  const box = document.getElementById("lookalikes");
  const list = document.getElementById("lookalike-list");
  const warning = document.getElementById("duplicate-warning");
  const fields = ["title", "text", "source_urls"].map((name) => form.elements[name]).filter(Boolean);
  let timer = null;
  let latest = 0;

  const item = (entry, duplicate) => {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = entry.url;
    link.textContent = `${entry.id}: ${entry.title}`;
    li.append(link);
    if (duplicate) {
      li.className = "duplicate";
      li.append(` (${entry.reason})`);
    }
    return li;
  };

  const check = async () => {
    const params = new URLSearchParams();
    const title = form.elements.title.value.trim();
    const text = form.elements.text.value.trim();
    if (title) params.set("title", title.slice(0, 300));
    if (text) params.set("text", text.slice(0, 5000));
    form.elements.source_urls.value.split("\n").map((u) => u.trim()).filter((u) => /^https?:\/\//.test(u))
      .slice(0, 10).forEach((u) => params.append("url", u));
    if (![...params.keys()].length) { box.hidden = true; return; }
    const ask = ++latest;
    const response = await fetch(`${form.dataset.lookalikes}?${params}`, { headers: { Accept: "application/json" } });
    if (!response.ok || ask !== latest) return;
    const body = await response.json();
    list.replaceChildren(...body.duplicates.map((e) => item(e, true)), ...body.similar.map((e) => item(e, false)));
    warning.hidden = body.duplicates.length === 0;
    box.hidden = list.children.length === 0;
  };

  fields.forEach((field) => field.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, 350);
  }));
})();
