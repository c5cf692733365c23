extension SearchPage {
    /// The page: HTML, CSS and script in one document with no build step and no dependencies.
    /// `Tests/SearchPageTests` drives it in headless Chromium; the element ids below are what
    /// that test reads, so rename them together.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Typeahead</title>
<style>
  :root { --ink: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --tint: #0066cc; --soft: #f5f5f7; --bad: #b3261e; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.4 -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
  main { display: grid; grid-template-columns: minmax(0, 1fr) 20rem; gap: 1.5rem; max-width: 64rem; margin: 0 auto; padding: 1.5rem; }
  header { grid-column: 1 / -1; display: flex; align-items: baseline; gap: 1rem; }
  h1 { font-size: 1.3rem; margin: 0; }
  h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 1rem 0 .4rem; }
  #server { color: var(--muted); font-size: .85rem; }
  #form { display: flex; gap: .5rem; align-items: stretch; }
  #scope { font: inherit; border: 1px solid var(--line); border-radius: .6rem; padding: 0 .5rem; background: #fff; color: var(--ink); }
  #field { flex: 1; display: flex; flex-wrap: wrap; align-items: center; gap: .3rem; border: 1px solid var(--line); border-radius: .6rem; padding: .35rem .5rem; background: var(--soft); }
  #field:focus-within { border-color: var(--tint); box-shadow: 0 0 0 3px #0066cc22; }
  #text { flex: 1; min-width: 10rem; border: 0; background: transparent; font: inherit; font-size: 1.05rem; padding: .3rem; outline: none; }
  .token { display: inline-flex; align-items: center; gap: .25rem; background: var(--tint); color: #fff; border-radius: 1rem; padding: .1rem .25rem .1rem .6rem; font-size: .85rem; }
  .token button { border: 0; background: #ffffff33; color: #fff; border-radius: 1rem; width: 1.3rem; height: 1.3rem; cursor: pointer; font: inherit; line-height: 1; }
  #suggestions { border: 1px solid var(--line); border-radius: .6rem; margin-top: .4rem; padding: .4rem 0; }
  #suggestions ul, #results ol { list-style: none; margin: 0; padding: 0; }
  .suggestion { padding: .35rem .8rem; cursor: pointer; }
  .suggestion.active, .suggestion:hover { background: var(--soft); }
  .suggestion .meta, .hit .meta { color: var(--muted); font-size: .8rem; }
  .completion { color: var(--tint); }
  mark { background: none; color: inherit; font-weight: 700; }
  .chips { display: flex; flex-wrap: wrap; gap: .35rem; padding: .2rem .8rem .4rem; }
  .chips:empty { display: none; }
  #suggestions .section h2 { padding: 0 .8rem; margin: .5rem 0 .2rem; }
  #suggestions .section:first-child h2 { margin-top: .1rem; }
  .chip, .facet { border: 1px solid var(--line); background: #fff; border-radius: 1rem; padding: .15rem .65rem; cursor: pointer; font: inherit; font-size: .85rem; }
  .chip:hover, .facet:hover { border-color: var(--tint); color: var(--tint); }
  .chip .count, .facet .count { color: var(--muted); margin-left: .3rem; }
  .total { color: var(--muted); margin: 1rem 0 .3rem; }
  .facets { display: flex; flex-wrap: wrap; gap: .35rem; margin-bottom: .6rem; }
  .hit { padding: .5rem 0; border-bottom: 1px solid var(--soft); }
  .more { margin-top: .8rem; font: inherit; padding: .35rem .9rem; border-radius: .5rem; border: 1px solid var(--line); background: #fff; cursor: pointer; }
  #error { color: var(--bad); }
  aside table { width: 100%; border-collapse: collapse; font-size: .8rem; font-variant-numeric: tabular-nums; }
  aside th { text-align: left; color: var(--muted); font-weight: 400; }
  aside td, aside th { padding: .15rem .3rem; border-bottom: 1px solid var(--soft); }
  aside td.text { max-width: 8rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  aside td.partial { color: var(--bad); }
  #summary { font-size: .85rem; color: var(--muted); }
  [hidden] { display: none !important; }
  @media (max-width: 48rem) { main { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<main>
  <header><h1>Typeahead</h1><span id="server"></span></header>
  <section>
    <form id="form" role="search" autocomplete="off">
      <select id="scope" aria-label="Scope" hidden></select>
      <div id="field">
        <span id="tokens"></span>
        <input id="text" type="text" placeholder="Search" aria-label="Search" aria-autocomplete="list"
               aria-controls="suggestions" spellcheck="false" autocapitalize="off" autofocus>
      </div>
    </form>
    <p id="error" role="alert" hidden></p>
    <div id="suggestions" hidden>
      <div id="chips" class="chips"></div>
      <ul id="completions"></ul>
      <ul id="entries"></ul>
      <div id="sections"></div>
    </div>
    <div id="results" hidden>
      <div id="single">
        <p id="total" class="total"></p>
        <div id="facets" class="facets"></div>
        <ol id="hits" class="hits"></ol>
        <button id="more" class="more" type="button" hidden>More results</button>
      </div>
      <div id="result-sections"></div>
    </div>
  </section>
  <aside>
    <h2>Keystrokes</h2>
    <p id="summary">Type to see each keystroke's latency and the shards that answered.</p>
    <table>
      <thead><tr><th>text</th><th>ms</th><th>shards</th><th>gen</th></tr></thead>
      <tbody id="timings"></tbody>
    </table>
  </aside>
</main>
<script>
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const input = $("text");
  const key = new URLSearchParams(location.search).get("key");
  // One session per page load; revisions number its keystrokes so that the coordinator can cancel
  // superseded ones and this page can drop answers older than the one it shows.
  const session = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  const state = {
    tokens: [],      // [{kind, value}], the chips in the field
    sent: 0,         // the last revision sent
    shown: 0,        // the revision whose answer is on screen
    inflight: null,  // AbortController of the Suggest in flight
    choices: [],     // the selectable suggestions on screen, in order: [{element, choose}]
    active: -1,      // the index in choices that the arrow keys moved to
    query: null,     // the submitted {text, tokens, scope or collection} that "More results" continues
    latencies: [],
    describe: null,  // the server's Describe answer: its scopes, collections and prompts
    pick: {},        // what the picker names: {scope}, {collection}, or {} (the default collection)
    picked: "",      // the picker's value: "scope:NAME", "collection:NAME", or "" when it is hidden
  };
  // The unscoped results: a "block" is a total, facets, hits and "More results" (a section of a
  // scoped Search is one too, with its collection).
  const single = { total: $("total"), facets: $("facets"), hits: $("hits"), more: $("more"), nextPageToken: "" };
  $("server").textContent = location.host;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The title with its highlight ranges in <mark>: ranges are UTF-16 code units, sorted and
  // disjoint (the proto's contract); anything out of bounds is clamped rather than trusted.
  function highlighted(title, highlights) {
    const span = element("span", "title");
    let at = 0;
    for (const range of highlights || []) {
      const start = Math.max(at, Math.min(title.length, range.start | 0));
      const end = Math.max(start, Math.min(title.length, range.end | 0));
      if (start > at) span.append(title.slice(at, start));
      if (end > start) span.append(element("mark", "", title.slice(start, end)));
      at = end;
    }
    if (at < title.length) span.append(title.slice(at));
    return span;
  }

  async function call(method, body, signal) {
    const headers = { "content-type": "application/json" };
    if (key) headers.authorization = "Bearer " + key;
    const started = performance.now();
    const response = await fetch("/typeahead.v1.Typeahead/" + method, { method: "POST", headers, body: JSON.stringify(body), signal });
    const answer = await response.json().catch(() => ({}));
    const elapsed = performance.now() - started;
    if (!response.ok) {
      const error = new Error(answer.message || "HTTP " + response.status);
      error.code = answer.code || "unknown";
      throw error;
    }
    return { answer, elapsed };
  }

  function showError(error) {
    if (error.name === "AbortError") return;
    $("error").textContent = (error.code ? error.code + ": " : "") + error.message;
    $("error").hidden = false;
  }

  // What a token or chip shows: a category's name alone, an attribute's value after its kind
  // ("color: Red"), so a colour and a category of one name are told apart.
  function tokenLabel(kind, value) {
    return kind === "category" ? value : kind + ": " + value;
  }

  function renderTokens() {
    const box = $("tokens");
    box.replaceChildren();
    state.tokens.forEach((token, index) => {
      const chip = element("span", "token");
      chip.dataset.kind = token.kind;
      chip.dataset.value = token.value;
      chip.append(tokenLabel(token.kind, token.value));
      const remove = element("button", "remove", "×");
      remove.type = "button";
      remove.setAttribute("aria-label", "Remove " + token.value);
      remove.addEventListener("click", () => { removeToken(index); input.focus(); });
      chip.append(remove);
      box.append(chip);
    });
  }

  function removeToken(index) {
    state.tokens.splice(index, 1);
    renderTokens();
    suggest();
  }

  function setText(text) {
    input.value = text;
    input.focus();
    suggest();
  }

  // A chip or a facet that is already a token is not added twice.
  function pushToken(token) {
    if (!state.tokens.some((t) => t.kind === token.kind && t.value === token.value)) state.tokens.push({ kind: token.kind, value: token.value });
    renderTokens();
  }

  function addToken(token, text) {
    pushToken(token);
    setText(text);
  }

  // A chip (category suggestion) or facet button: the name, then the count in its own span.
  function countedButton(className, name, count) {
    const button = element("button", className, name);
    button.type = "button";
    button.append(element("span", "count", String(count)));
    return button;
  }

  function logTiming(text, elapsed, shards) {
    const row = element("tr");
    // Trailing spaces matter ("the" and "the " are different keystrokes), so they are shown.
    row.append(element("td", "text", text.replace(/ +$/, (spaces) => "␣".repeat(spaces.length)) || "∅"), element("td", "", elapsed.toFixed(1)));
    const answered = shards ? shards.succeeded + "/" + shards.total : "–";
    const cell = element("td", shards && shards.failed ? "partial" : "", answered);
    if (shards && shards.failedShards && shards.failedShards.length) cell.title = "failed: " + shards.failedShards.join(", ");
    row.append(cell, element("td", "", shards ? String(shards.generation) : "–"));
    const body = $("timings");
    body.prepend(row);
    while (body.rows.length > 25) body.deleteRow(body.rows.length - 1);
    state.latencies.push(elapsed);
    if (state.latencies.length > 200) state.latencies.shift();
    const sorted = [...state.latencies].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    $("summary").textContent = state.latencies.length + " keystrokes, median " + median.toFixed(1) + " ms round trip";
  }

  function choice(node, choose) {
    node.addEventListener("mousedown", (event) => { event.preventDefault(); choose(); });
    state.choices.push({ element: node, choose });
    return node;
  }

  function renderChips(chips, categories) {
    chips.replaceChildren();
    for (const category of categories || []) {
      const chip = countedButton("chip", tokenLabel(category.token.kind, category.name), category.count);
      chip.addEventListener("mousedown", (event) => { event.preventDefault(); addToken(category.token, category.replacementText); });
      chips.append(chip);
    }
  }

  function renderEntries(list, entries) {
    list.replaceChildren();
    for (const entry of entries || []) {
      const item = element("li", "suggestion entry");
      item.dataset.id = entry.id;
      item.append(highlighted(entry.title, entry.highlights));
      if (entry.categories && entry.categories.length) item.append(element("div", "meta", entry.categories.join(" · ")));
      list.append(choice(item, () => setText(entry.completion)));
    }
  }

  // Unscoped: chips, completions, entries. Scoped: the merged completions once, then each
  // collection's section (a heading, its chips and its entries; a section with neither is left
  // out). The arrow keys walk the completions, then the entries in the order shown.
  function renderSuggestions(answer) {
    state.choices = [];
    state.active = -1;
    renderChips($("chips"), answer.categories);
    const completions = $("completions");
    completions.replaceChildren();
    for (const completion of answer.completions || []) {
      completions.append(choice(element("li", "suggestion completion", completion.text), () => setText(completion.text)));
    }
    renderEntries($("entries"), answer.entries);
    const sections = $("sections");
    sections.replaceChildren();
    for (const section of answer.sections || []) {
      if (!(section.entries || []).length && !(section.categories || []).length) continue;
      const box = element("section", "section");
      box.dataset.collection = section.collection;
      const chips = element("div", "chips");
      const entries = element("ul", "entries");
      box.append(element("h2", "", section.collection), chips, entries);
      renderChips(chips, section.categories);
      renderEntries(entries, section.entries);
      sections.append(box);
    }
    $("suggestions").hidden = !(state.choices.length || $("chips").childElementCount || sections.childElementCount);
  }

  // A scoped answer has no top-level shards: each section has its own, added up here (failed
  // shards named with their collection, one generation per section).
  function shardsOf(answer) {
    if (answer.shards || !(answer.sections || []).length) return answer.shards;
    const all = { total: 0, succeeded: 0, failed: 0, failedShards: [], generation: [] };
    for (const section of answer.sections) {
      const shards = section.shards || {};
      all.total += shards.total | 0;
      all.succeeded += shards.succeeded | 0;
      all.failed += shards.failed | 0;
      for (const name of shards.failedShards || []) all.failedShards.push(section.collection + "/" + name);
      all.generation.push(String(shards.generation || 0));
    }
    all.generation = all.generation.join(" ");
    return all;
  }

  function suggest() {
    const text = input.value;
    state.inflight?.abort();
    state.inflight = null;
    if (text.trim() === "" && state.tokens.length === 0) {
      state.shown = ++state.sent;
      $("suggestions").hidden = true;
      return;
    }
    const revision = ++state.sent;
    const controller = new AbortController();
    state.inflight = controller;
    const picked = state.picked;
    call("Suggest", { text, tokens: state.tokens, ...state.pick, session, revision: String(revision) }, controller.signal)
      .then(({ answer, elapsed }) => {
        logTiming(text, elapsed, shardsOf(answer));
        // Answers can arrive out of order (a slow shard, a retried call): never go back in time.
        const answered = Number(answer.revision || revision);
        if (answered <= state.shown) return;
        state.shown = answered;
        $("error").hidden = true;
        $("suggestions").dataset.text = text;
        $("suggestions").dataset.picked = picked;
        renderSuggestions(answer);
      })
      .catch(showError);
  }

  function renderHits(block, answer, append) {
    const hits = block.hits;
    if (!append) hits.replaceChildren();
    for (const hit of answer.hits || []) {
      const item = element("li", "hit");
      item.dataset.id = hit.id;
      item.append(highlighted(hit.title, hit.highlights));
      const meta = [(hit.categories || []).join(" · ")];
      if (hit.attributes && hit.attributes.price) meta.push(hit.attributes.price);
      item.append(element("div", "meta", meta.filter(Boolean).join(" — ")));
      hits.append(item);
    }
    const total = answer.totalHits || 0;
    const shards = answer.shards;
    block.total.textContent = total + (total === 1 ? " result" : " results")
      + (shards ? " from " + shards.succeeded + " of " + shards.total + " shards" : "");
    block.total.dataset.total = String(total);
    block.nextPageToken = answer.nextPageToken || "";
    block.more.hidden = block.nextPageToken === "";
  }

  function renderFacets(facets, answer) {
    facets.replaceChildren();
    for (const facet of answer.facets || []) {
      const button = countedButton("facet", facet.name, facet.count);
      button.addEventListener("click", () => { pushToken({ kind: "category", value: facet.name }); submit(); });
      facets.append(button);
    }
  }

  // A scoped Search's section: its collection's heading, total, facets, first page and its own
  // "More results".
  function renderSection(section) {
    const block = {
      total: element("p", "total"), facets: element("div", "facets"), hits: element("ol", "hits"),
      more: element("button", "more", "More results"), collection: section.collection, nextPageToken: "",
    };
    block.more.type = "button";
    block.more.addEventListener("click", () => loadMore(block));
    const box = element("section", "section");
    box.dataset.collection = section.collection;
    box.append(element("h2", "", section.collection), block.total, block.facets, block.hits, block.more);
    renderFacets(block.facets, section);
    renderHits(block, section, false);
    return box;
  }

  function submit() {
    state.inflight?.abort();
    state.shown = ++state.sent;
    $("suggestions").hidden = true;
    const query = { text: input.value, tokens: state.tokens.map((t) => ({ ...t })), ...state.pick };
    state.query = query;
    call("Search", { ...query, pageSize: 10 })
      .then(({ answer, elapsed }) => {
        logTiming("⏎ " + query.text, elapsed, shardsOf(answer));
        if (state.query !== query) return;
        $("error").hidden = true;
        const sections = answer.sections || [];
        $("single").hidden = sections.length > 0;
        $("result-sections").replaceChildren(...sections.map(renderSection));
        renderFacets(single.facets, answer);
        renderHits(single, answer, false);
        $("results").hidden = false;
      })
      .catch(showError);
  }

  // The next page of a block. A section is paged by a Search naming its collection, with the same
  // text and the tokens, the scope's fixed tokens included (a scoped Search takes no page token).
  function loadMore(block) {
    const query = state.query;
    if (!query || !block.nextPageToken) return;
    let request = { ...query };
    if (block.collection !== undefined) {
      const { scope, ...rest } = query;
      const fixed = (state.describe?.scopes || []).find((s) => s.name === scope)?.tokens || [];
      const tokens = [...query.tokens];
      for (const token of fixed) {
        if (!tokens.some((t) => t.kind === token.kind && t.value === token.value)) tokens.push({ kind: token.kind, value: token.value });
      }
      request = { ...rest, tokens, collection: block.collection };
    }
    block.more.disabled = true;
    call("Search", { ...request, pageSize: 10, pageToken: block.nextPageToken, facets: false })
      .then(({ answer }) => { if (state.query === query) renderHits(block, answer, true); })
      .catch(showError)
      .finally(() => { block.more.disabled = false; });
  }

  // The scope picker, from Describe: one option per scope (its label), then one per collection;
  // the first scope is picked, else the default collection. Hidden when there is nothing to pick
  // (one collection, no scope), and then requests name neither. The field's placeholder is the
  // picked scope's prompt, else the server's default prompt.
  const picker = $("scope");
  function applyPick() {
    const describe = state.describe || {};
    const value = picker.hidden ? "" : picker.value;
    const [kind, ...name] = value.split(":");
    state.picked = value;
    state.pick = value === "" ? {} : { [kind]: name.join(":") };
    const scope = (describe.scopes || []).find((s) => kind === "scope" && s.name === state.pick.scope);
    input.placeholder = scope?.prompt || describe.defaultPrompt || "Search";
    input.setAttribute("aria-label", input.placeholder);
  }

  async function describe() {
    const headers = {};
    if (key) headers.authorization = "Bearer " + key;
    try {
      const response = await fetch("/v1/describe", { headers });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        const error = new Error("Describe: " + (answer.message || "HTTP " + response.status));
        error.code = answer.code;
        throw error;
      }
      state.describe = answer;
      const scopes = answer.scopes || [];
      const collections = answer.collections || [];
      picker.replaceChildren();
      for (const scope of scopes) {
        const option = element("option", "", scope.label || scope.name);
        option.value = "scope:" + scope.name;
        if (scope.prompt) option.title = scope.prompt;
        picker.append(option);
      }
      for (const collection of collections) {
        const option = element("option", "", collection.name);
        option.value = "collection:" + collection.name;
        picker.append(option);
      }
      picker.value = scopes.length ? "scope:" + scopes[0].name : "collection:" + answer.defaultCollection;
      picker.hidden = scopes.length === 0 && collections.length <= 1;
      applyPick();
      if (input.value !== "" || state.tokens.length) suggest();
    } catch (error) {
      showError(error);
    } finally {
      document.documentElement.dataset.described = "true";
    }
  }

  picker.addEventListener("change", () => {
    applyPick();
    input.focus();
    if (!$("results").hidden && state.query) submit(); else suggest();
  });

  function move(step) {
    if (!state.choices.length || $("suggestions").hidden) return;
    state.choices[state.active]?.element.classList.remove("active");
    // -1 is the field itself: the arrows cycle through it as well as through the suggestions.
    state.active = (state.active + step + state.choices.length + 2) % (state.choices.length + 1) - 1;
    state.choices[state.active]?.element.classList.add("active");
  }

  input.addEventListener("input", suggest);
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") { event.preventDefault(); move(1); }
    else if (event.key === "ArrowUp") { event.preventDefault(); move(-1); }
    else if (event.key === "Escape") { $("suggestions").hidden = true; }
    else if (event.key === "Backspace" && input.selectionStart === 0 && input.selectionEnd === 0 && state.tokens.length) {
      event.preventDefault();
      removeToken(state.tokens.length - 1);
    } else if (event.key === "Enter" && state.active >= 0 && !$("suggestions").hidden) {
      event.preventDefault();
      state.choices[state.active].choose();
    }
  });
  $("form").addEventListener("submit", (event) => { event.preventDefault(); submit(); });
  $("more").addEventListener("click", () => loadMore(single));
  describe();
})();
</script>
</body>
</html>
"""#
}
