// pinbench view: a hash-routed page over the server's JSON API. Everything from the store is
// data: it enters the page as text nodes and attributes built here, never as HTML.
"use strict";

(() => {
  const main = document.getElementById("main");
  const crumbs = document.getElementById("crumbs");
  const banner = document.getElementById("error");
  const liveBadge = document.getElementById("live");
  const LIMIT = 50;
  let timer = null; // the live poll of a running run
  let shown = null; // what the page shows: {view, id, ...}
  let generation = 0; // bumped per navigation: late answers to an old page are dropped

  // DOM building: attributes and text only
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  const enc = encodeURIComponent;
  const pct = (v) => (v === null || v === undefined ? "n/a" : (100 * v).toFixed(1));
  const pm = (mean, std) => (mean === null || mean === undefined ? "n/a"
    : `${pct(mean)}${std ? ` ± ${pct(std)}` : ""}`);
  const when = (ts) => (ts ? new Date(ts * 1000).toLocaleString() : "");
  const badge = (status) => h("span", { class: `st st-${status || "none"}` }, status || "—");
  const runLink = (id) => `#/run/${enc(id)}`;
  const sampleLink = (id, r) =>
    `#/run/${enc(id)}/sample/${enc(r.problem_id)}/${r.seed}/${r.sample}`;

  async function api(path) {
    const response = await fetch(path, { headers: { Accept: "application/json" } });
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = { error: `HTTP ${response.status}` };
    }
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  }

  function showError(message) {
    banner.textContent = message;
    banner.hidden = !message;
  }

  function setCrumbs(...items) {
    crumbs.replaceChildren(
      ...items.flatMap((item, i) => [
        ...(i ? [h("span", { class: "sep" }, "›")] : []),
        item.href ? h("a", { href: item.href }, item.text) : h("span", {}, item.text),
      ]),
    );
  }

  function section(title, ...children) {
    return h("section", { class: "card" }, h("h2", {}, title), ...children);
  }

  function table(headers, rows, attrs) {
    return h("table", attrs || {},
      h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
      h("tbody", {}, rows));
  }

  function pre(text, cls) {
    return h("pre", { class: cls || "code" }, text === null || text === undefined ? "" : text);
  }

  function pager(page, onMove) {
    const { total, offset, limit } = page;
    const last = Math.min(total, offset + page.rows.length);
    return h("div", { class: "pager" },
      h("button", { type: "button", class: "prev", disabled: offset <= 0,
        onclick: () => onMove(Math.max(0, offset - limit)) }, "← previous"),
      h("span", { class: "range" },
        total ? `${offset + 1}–${last} of ${total}` : "nothing matches"),
      h("button", { type: "button", class: "next", disabled: offset + limit >= total,
        onclick: () => onMove(offset + limit) }, "next →"));
  }

  function stopLive() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    liveBadge.hidden = true;
  }

  // routing
  function route() {
    const raw = location.hash.replace(/^#/, "") || "/runs";
    const [path, query] = raw.split("?", 2);
    let parts;
    try {
      parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    } catch (_) {
      parts = [];
    }
    return { parts, params: new URLSearchParams(query || "") };
  }

  async function navigate() {
    const { parts, params } = route();
    const token = ++generation;
    showError("");
    try {
      if (parts[0] === "run" && parts.length >= 2 && parts.length <= 3) {
        if (shown && shown.view === "run" && shown.id === parts[1]) {
          await shown.loadSamples(params, token);
          return;
        }
        stopLive();
        await runView(parts[1], params, token);
      } else if (parts[0] === "run" && parts[2] === "sample" && parts.length === 6) {
        stopLive();
        await sampleView(parts[1], parts[3], parts[4], parts[5], token);
      } else if (parts[0] === "compare" && parts.length === 3) {
        stopLive();
        await compareView(parts[1], parts[2], params, token);
      } else {
        stopLive();
        await runsView(params, token);
      }
    } catch (exc) {
      if (token === generation) showError(exc.message);
    }
  }

  function render(token, view, ...children) {
    if (token !== generation) return false;
    shown = view;
    const nodes = children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false);
    main.replaceChildren(...nodes);
    return true;
  }

  // #/runs
  async function runsView(params, token) {
    const offset = Number(params.get("offset") || 0);
    const page = await api(`/api/runs?limit=100&offset=${offset}`);
    setCrumbs({ text: "runs" });
    const picked = new Set();
    const button = h("button", { type: "button", id: "compare", disabled: true,
      onclick: () => {
        const [a, b] = [...picked];
        location.hash = `#/compare/${enc(a)}/${enc(b)}`;
      } }, "compare the two selected runs");
    const rows = page.rows.map((r) => h("tr", { class: "run", "data-id": r.id },
      h("td", {}, h("input", { type: "checkbox", "aria-label": `select ${r.id}`,
        onchange: (event) => {
          if (event.target.checked) picked.add(r.id);
          else picked.delete(r.id);
          button.disabled = picked.size !== 2;
        } })),
      h("td", {}, h("a", { href: runLink(r.id), class: "mono" }, r.id)),
      h("td", {}, r.model_name || r.model || ""),
      h("td", {}, r.task || ""),
      h("td", {}, `${r.dataset || ""} (${r.split || ""})`),
      h("td", { class: "num" }, `${r.n ?? ""}×${r.seeds ?? ""}`),
      h("td", { class: "num" }, r.feedback_rounds ?? 0),
      h("td", {}, badge(r.status)),
      h("td", { class: "num" }, r.samples ?? ""),
      h("td", { class: "num" }, pct(r.pass_at_1)),
      h("td", { class: "num" }, r.feedback_rounds ? pct(r.pass_at_1_feedback) : ""),
      h("td", {}, when(r.updated))));
    render(token, { view: "runs" },
      section(`Runs (${page.total})`,
        page.total ? table(["", "run", "model", "task", "dataset", "n×seeds", "feedback rounds",
          "status", "samples", "pass@1 %", "after feedback %", "updated"], rows,
        { id: "runs" }) : h("p", { class: "muted" },
          "No runs in this store yet: `pinbench run` records one."),
        h("div", { class: "actions" }, button),
        page.total > page.limit ? pager(page, (o) => { location.hash = `#/runs?offset=${o}`; })
          : null));
  }

  // #/run/ID and #/run/ID/samples?filters
  async function runView(id, params, token) {
    const data = await api(`/api/runs/${enc(id)}`);
    const run = data.run;
    setCrumbs({ text: "runs", href: "#/runs" }, { text: run.id, href: runLink(run.id) });
    const progressBox = h("div", { class: "progress", id: "progress" });
    const tableBox = h("div", { id: "samples-table" });
    const form = filterForm(run, data, params);
    const view = {
      view: "run",
      id: run.id,
      params,
      async loadSamples(next, tok) {
        view.params = next;
        form.sync(next);
        const query = new URLSearchParams();
        for (const key of ["status", "outcome", "q", "library", "round", "offset"]) {
          if (next.get(key)) query.set(key, next.get(key));
        }
        query.set("limit", String(LIMIT));
        const page = await api(`/api/runs/${enc(run.id)}/samples?${query}`);
        if (tok !== generation) return;
        tableBox.replaceChildren(samplesTable(run.id, page, next));
      },
    };
    fillProgress(progressBox, data.progress);
    render(token, view,
      h("h1", {}, "Run ", h("span", { class: "mono" }, run.id), " ", badge(run.status)),
      section("Summary", summaryList(run, data), progressBox, scoresTable(data)),
      breakdownSections(data),
      plotsSection(run.id, data.plots),
      section("Samples", form.element, tableBox));
    await view.loadSamples(params, token);
    if (run.status === "running") startLive(view, progressBox);
  }

  function summaryList(run, data) {
    const c = run.config || {};
    const items = [
      ["model", c.model], ["model name", run.model_name], ["task", c.task],
      ["dataset", `${c.dataset} (${c.split})`], ["samples per problem (n)", c.n],
      ["seeds", c.seeds], ["k", (c.k || []).join(", ")], ["temperature", c.temperature],
      ["feedback rounds", c.feedback_rounds], ["created", when(run.created)],
      ["updated", when(run.updated)],
      ["wall time", data.summary ? `${data.summary.wall_seconds.toFixed(1)} s` : ""],
      ["requests", `${data.requests.requests} (${data.requests.cached} cached, `
        + `${data.requests.errors} errors)`],
    ];
    return h("dl", { class: "facts" },
      items.filter(([, v]) => v !== undefined && v !== null && v !== "")
        .map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]));
  }

  function fillProgress(box, p) {
    const expected = p.expected ? ` of ${p.expected}` : "";
    box.replaceChildren(
      h("span", {}, "samples ", h("b", { id: "p-samples" }, String(p.samples)), expected),
      h("span", {}, "passed at round 0 ", h("b", { id: "p-passed" }, String(p.passed))),
      h("span", {}, "records (with feedback rounds) ",
        h("b", { id: "p-records" }, String(p.records))),
      h("span", {}, "status ", h("b", { id: "p-status" }, p.status)),
      p.expected ? h("progress", { max: p.expected, value: p.samples }) : null);
  }

  function startLive(view, box) {
    liveBadge.hidden = false;
    let busy = false;
    timer = setInterval(async () => {
      if (busy || shown !== view) return;
      busy = true;
      try {
        const p = await api(`/api/runs/${enc(view.id)}/progress`);
        if (shown !== view) return;
        fillProgress(box, p);
        if (p.status !== "running") {
          stopLive();
          shown = null;
          await navigate(); // finished: the summary and breakdowns are final now
        } else if (!Number(view.params.get("offset") || 0)) {
          await view.loadSamples(view.params, generation);
        }
      } catch (exc) {
        showError(`live update: ${exc.message}`);
      } finally {
        busy = false;
      }
    }, 1000);
  }

  function scoresTable(data) {
    const rounds = data.summary?.scores?.rounds;
    if (!rounds || !rounds.length) {
      const o = data.overall;
      return h("p", { class: "muted" }, "So far (no summary yet): pass@1 ",
        h("b", {}, pm(o.baseline, o.baseline_std)), " %",
        data.feedback ? [" · after feedback ", h("b", {}, pm(o.feedback, o.feedback_std)), " %"]
          : null);
    }
    const ks = rounds[0].pass_at.map((x) => x.k);
    return table(["round", ...ks.map((k) => `pass@${k} %`), "compile rate %", "scored"],
      rounds.map((r) => h("tr", {}, h("td", {}, r.round),
        r.pass_at.map((x) => h("td", { class: "num" }, pm(x.mean, x.std))),
        h("td", { class: "num" }, pct(r.compile_rate)), h("td", { class: "num" }, r.scored))),
      { id: "scores" });
  }

  function breakdownSections(data) {
    const statuses = Object.entries(data.statuses || {});
    const errorNames = [...new Set(Object.values(data.errors || {})
      .flatMap((e) => Object.keys(e)))];
    const blocks = data.breakdowns.map((b) => h("div", { class: "breakdown" },
      h("h3", {}, `pass@1 by ${b.name}`),
      table(["group", "problems", "baseline %", data.feedback ? "after feedback %" : null]
        .filter(Boolean),
      b.groups.map((g) => h("tr", {}, h("td", {}, g.name), h("td", { class: "num" }, g.problems),
        h("td", { class: "num" }, pm(g.baseline, g.baseline_std)),
        data.feedback ? h("td", { class: "num" }, pm(g.feedback, g.feedback_std)) : null))),
      b.omitted ? h("p", { class: "muted" }, `${b.omitted} more groups (see the plot)`) : null));
    return [
      section("Breakdowns", h("div", { class: "grid" }, blocks)),
      section("Outcomes",
        h("div", { class: "grid" },
          h("div", {}, h("h3", {}, "statuses (last round)"),
            table(["status", "samples"], statuses.map(([s, n]) =>
              h("tr", {}, h("td", {}, badge(s)), h("td", { class: "num" }, n))))),
          h("div", {}, h("h3", {}, "error categories"),
            table(["category", "baseline", data.feedback ? "after feedback" : null]
              .filter(Boolean),
            errorNames.map((name) => h("tr", {}, h("td", {}, name),
              h("td", { class: "num" }, data.errors.baseline[name] || 0),
              data.feedback ? h("td", { class: "num" }, data.errors.feedback[name] || 0)
                : null)))))),
    ];
  }

  function plotsSection(id, titles) {
    return section("Plots", h("div", { class: "plots" }, titles.map((title, i) =>
      h("figure", { class: "plot" },
        h("img", { src: `/api/runs/${enc(id)}/plots/${i}.svg`, alt: title, loading: "lazy" }),
        h("figcaption", {}, title)))));
  }

  function filterForm(run, data, params) {
    const lib = data.breakdowns.find((b) => b.name === "library");
    const rounds = Number(run.config?.feedback_rounds || 0);
    const select = (name, label, values) => h("label", {}, label,
      h("select", { name }, h("option", { value: "" }, "any"),
        values.map((v) => h("option", { value: String(v) }, String(v)))));
    const search = h("input", { type: "search", name: "q", placeholder: "problem id contains…",
      "aria-label": "search problem ids" });
    const element = h("form", { class: "filters", id: "filters",
      onsubmit: (event) => { event.preventDefault(); apply(); } },
    select("status", "status", data.vocabulary.statuses),
    select("outcome", "outcome", data.vocabulary.outcomes),
    select("library", "library", lib ? lib.groups.map((g) => g.name) : []),
    select("round", "round", [...Array(rounds + 1).keys()]),
    h("label", {}, "problem", search),
    h("button", { type: "button", onclick: () => { element.reset(); apply(); } }, "clear"));
    function apply(offset) {
      const query = new URLSearchParams();
      for (const field of element.elements) {
        if (field.name && field.value) query.set(field.name, field.value);
      }
      if (offset) query.set("offset", String(offset));
      const text = query.toString();
      location.hash = `#/run/${enc(run.id)}/samples${text ? `?${text}` : ""}`;
    }
    let typing = null;
    element.addEventListener("change", () => apply());
    search.addEventListener("input", () => {
      clearTimeout(typing);
      typing = setTimeout(() => apply(), 300);
    });
    return {
      element,
      apply,
      sync(next) {
        for (const field of element.elements) {
          if (field.name && field.value !== (next.get(field.name) || "")
            && document.activeElement !== field) field.value = next.get(field.name) || "";
        }
      },
    };
  }

  function samplesTable(id, page, params) {
    const move = (offset) => {
      const query = new URLSearchParams(params);
      if (offset) query.set("offset", String(offset));
      else query.delete("offset");
      location.hash = `#/run/${enc(id)}/samples?${query}`;
    };
    return h("div", {},
      h("p", { class: "count" }, h("b", { id: "samples-total" }, String(page.total)),
        " samples match"),
      table(["problem", "library", "seed", "sample", "round", "status", "exception", "message",
        "seconds"],
      page.rows.map((r) => h("tr", { class: "sample" },
        h("td", {}, h("a", { href: sampleLink(id, r), class: "mono" }, r.problem_id)),
        h("td", {}, r.library), h("td", { class: "num" }, r.seed),
        h("td", { class: "num" }, r.sample), h("td", { class: "num" }, r.round),
        h("td", {}, badge(r.status)), h("td", {}, r.exc_type || ""),
        h("td", { class: "msg" }, r.message),
        h("td", { class: "num" }, (r.seconds || 0).toFixed(2)))),
      { id: "samples" }),
      pager(page, move));
  }

  // #/run/ID/sample/PROBLEM/SEED/SAMPLE
  async function sampleView(id, problem, seed, sample, token) {
    const path = `/api/runs/${enc(id)}/samples/${enc(problem)}/${enc(seed)}/${enc(sample)}`;
    const data = await api(path);
    setCrumbs({ text: "runs", href: "#/runs" }, { text: data.run_id, href: runLink(data.run_id) },
      { text: `${data.problem_id} · seed ${data.seed} · sample ${data.sample}` });
    const item = data.item;
    const itemFacts = item ? h("dl", { class: "facts" },
      [["library", `${item.library}==${item.version}`],
        ["toolchain", `${item.toolchain} ${item.toolchain_version || ""}`],
        ["release date", item.release_date], ["type of change", item.change],
        ...Object.entries(item.breakdowns || {})]
        .filter(([, v]) => v).map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]))
      : h("p", { class: "muted" }, "This run kept no record of the item.");
    render(token, { view: "sample" },
      h("h1", {}, h("span", { class: "mono", id: "sample-title" }, data.problem_id),
        ` · seed ${data.seed} · sample ${data.sample}`),
      h("p", {}, h("a", { href: `#/run/${enc(data.run_id)}/samples?q=${enc(data.problem_id)}` },
        "← this problem's samples")),
      section("Item", itemFacts, item ? [h("h3", {}, "problem"), pre(item.problem, "text")] : null),
      section("Tests", item ? [h("h3", {}, "visible test (its errors are the feedback)"),
        pre(item.visible_test || "(none)", "code test-visible"),
        h("h3", {}, "hidden test (decides the outcome)"),
        pre(item.hidden_test || "(none)", "code test-hidden")] : h("p", { class: "muted" }, "—")),
      data.rounds.map((r) => roundSection(r)));
  }

  function roundSection(r) {
    const facts = [["status", badge(r.status)], ["visible test", r.visible_status || "—"],
      ["exception", r.exc_type || "—"], ["compiles", r.compiles ? "yes" : "no"],
      ["seconds", (r.seconds || 0).toFixed(2)], ["environment", r.env_key || "—"],
      ["finish reason", r.finish_reason || "—"],
      ...Object.entries(r.metrics || {}).map(([k, v]) => [k, String(v)])];
    return h("section", { class: "card round", id: `round-${r.round}`, "data-round": r.round },
      h("h2", {}, `Round ${r.round}`, " ", badge(r.status)),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      h("h3", {}, "prompt"),
      r.prompt ? r.prompt.map((m) => h("div", { class: "message" },
        h("div", { class: "role" }, m.role), pre(m.content, "text prompt")))
        : h("p", { class: "muted" }, "not recorded (a cached or failed request)"),
      r.diff !== null ? [h("h3", {}, "diff to the previous round's program"),
        diffBlock(r.diff)] : null,
      h("h3", {}, "program"), pre(r.program, "code program"),
      h("h3", {}, "message"), pre(r.message || "(none)", "text trace"),
      deprecationList(r.deprecations),
      r.feedback ? [h("h3", {}, "feedback shown to the next round"),
        pre(r.feedback, "text feedback")] : null,
      r.response !== null ? h("details", {}, h("summary", {}, "the model's raw response"),
        pre(r.response, "text response")) : null);
  }

  function deprecationList(found) {
    if (!found || (!found.found.length && !found.tampered)) return null;
    return [h("h3", {}, "deprecation signals under the program's code"),
      found.tampered ? h("p", { class: "muted" },
        "the program replaced the warnings machinery: some signals may be missing") : null,
      found.found.length ? table(["category", "API", "line", "code", "message"],
        found.found.map((d) => h("tr", {}, h("td", {}, d.category), h("td", {}, d.api || ""),
          h("td", { class: "num" }, d.line), h("td", { class: "mono" }, d.code),
          h("td", {}, d.message)))) : null];
  }

  function diffBlock(diff) {
    if (!diff) return h("p", { class: "muted" }, "identical to the previous round's program");
    return h("pre", { class: "code diff" }, diff.split("\n").map((line) => {
      let cls = "ctx";
      if (line.startsWith("+++") || line.startsWith("---")) cls = "file";
      else if (line.startsWith("@@")) cls = "hunk";
      else if (line.startsWith("+")) cls = "add";
      else if (line.startsWith("-")) cls = "del";
      return h("span", { class: cls }, `${line}\n`);
    }));
  }

  // #/compare/A/B
  async function compareView(a, b, params, token) {
    const query = new URLSearchParams();
    for (const key of ["q", "sort", "offset"]) if (params.get(key)) query.set(key, params.get(key));
    query.set("limit", String(LIMIT));
    const data = await api(`/api/compare/${enc(a)}/${enc(b)}?${query}`);
    const [ra, rb] = data.runs;
    setCrumbs({ text: "runs", href: "#/runs" }, { text: `compare ${ra.id} with ${rb.id}` });
    const rates = (name) => !["problems", "samples"].includes(name);
    const fmt = (name, v) => (rates(name) ? pct(v) : (v ?? "n/a"));
    const deltas = table(["", `A ${ra.id}`, `B ${rb.id}`, "B − A"],
      data.deltas.map((d) => h("tr", {}, h("td", {}, d.name + (rates(d.name) ? " %" : "")),
        h("td", { class: "num" }, fmt(d.name, d.a)), h("td", { class: "num" }, fmt(d.name, d.b)),
        h("td", { class: `num ${d.delta > 0 ? "up" : d.delta < 0 ? "down" : ""}` },
          d.delta === null ? "n/a" : rates(d.name) ? `${d.delta > 0 ? "+" : ""}${pct(d.delta)}`
            : String(d.delta)))), { id: "deltas" });
    const d = data.difference;
    const pairs = d ? h("p", { class: "pair", id: "difference" },
      `B − A per problem: ${d.mean > 0 ? "+" : ""}${(100 * d.mean).toFixed(1)} points, 95 % CI `
      + `[${(100 * d.low).toFixed(1)}, ${(100 * d.high).toFixed(1)}] over ${d.problems} `
      + "problems both runs scored (paired bootstrap)") : null;
    const move = (extra) => {
      const next = new URLSearchParams(params);
      for (const [k, v] of Object.entries(extra)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      location.hash = `#/compare/${enc(a)}/${enc(b)}?${next}`;
    };
    const search = h("input", { type: "search", name: "q", value: params.get("q") || "",
      placeholder: "problem id contains…", "aria-label": "search problem ids" });
    search.addEventListener("change", () => move({ q: search.value, offset: "" }));
    const sort = h("select", { name: "sort", onchange: (e) => move({ sort: e.target.value,
      offset: "" }) }, [["id", "problem id"], ["delta", "B − A, lowest first"],
      ["-delta", "B − A, highest first"]].map(([v, t]) => h("option",
      { value: v, selected: (params.get("sort") || "id") === v }, t)));
    const page = data.problems;
    render(token, { view: "compare" },
      h("h1", {}, "A ", h("a", { href: runLink(ra.id), class: "mono" }, ra.id),
        ` ${ra.model_name} vs B `, h("a", { href: runLink(rb.id), class: "mono" }, rb.id),
        ` ${rb.model_name}`),
      section("Summary", deltas,
        h("p", { class: "muted" }, `${data.shared_problems} shared problems`), pairs),
      section("Problems",
        h("div", { class: "filters" }, h("label", {}, "problem", search),
          h("label", {}, "sort", sort)),
        table(["problem", "library", "A %", "B %", "B − A", "A after feedback %",
          "B after feedback %"], page.rows.map((r) => h("tr", { class: "problem" },
          h("td", {}, h("a", { class: "mono",
            href: `#/run/${enc(ra.id)}/samples?q=${enc(r.id)}` }, r.id)),
          h("td", {}, r.library), h("td", { class: "num" }, pct(r.a)),
          h("td", { class: "num" }, pct(r.b)),
          h("td", { class: `num ${r.delta > 0 ? "up" : r.delta < 0 ? "down" : ""}` },
            r.delta === null ? "n/a" : `${r.delta > 0 ? "+" : ""}${pct(r.delta)}`),
          h("td", { class: "num" }, pct(r.a_feedback)), h("td", { class: "num" },
            pct(r.b_feedback)))), { id: "compare-problems" }),
        pager(page, (offset) => move({ offset: offset ? String(offset) : "" }))));
  }

  window.addEventListener("hashchange", navigate);
  navigate();
})();
