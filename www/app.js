// The demo page: input, a run in the Web Worker, the clusters, the pair
// inspector, charts, the stored signatures. No wasm runs on this thread: the
// encoder's worker does the de-duplication, a second (lite) worker scores
// pairs for the histogram.
import { WorkerSemHash } from "/pkg/worker-client.js";
import { splitParagraphs, parseFile, withIds } from "./input.js";
import { wordDiff } from "./diff.js";
import { drawBars, drawHistogram } from "./charts.js";
import { toJsonl, toCsv, download } from "./export.js";

const $ = (id) => document.getElementById(id);
const STORE_NAME = "semhash-demo";
// Every pair of up to ~80 documents; beyond, the linked pairs and a sample.
const MAX_PAIRS = 3200;
// Beyond these the page would take long to lay out; the export has everything.
const MAX_CLUSTERS_SHOWN = 300;
const MAX_SINGLES_SHOWN = 1000;
const EXCERPT = 280;

// How a relation is shown: its badge (kind) and words.
const KIND = { exact: "exact", near: "near", paraphrase: "paraphrase", contained_in: "contains", contains: "contains" };
const KIND_LABEL = { exact: "exact", near: "near", paraphrase: "paraphrase", contains: "containment", snippet: "snippet" };
const VERDICT_WORDS = {
  exact: "is an exact copy of",
  near: "is a near duplicate of",
  paraphrase: "is a paraphrase of",
  contained_in: "is contained in",
  contains: "contains",
};
const RELATION_WORDS = {
  exact: "exact copy of",
  near: "near duplicate of",
  paraphrase: "paraphrase of",
  contained_in: "contained in",
  contains: "contains",
};
const STAGE_WORDS = {
  model: "Loading the encoder",
  normalize: "Normalizing",
  sign: "Signing",
  compare: "Comparing candidate pairs",
  embed: "Embedding short texts with the encoder",
  add: "Storing signatures",
};

const engine = new WorkerSemHash(new URL("semhash-worker.js", import.meta.url));
const ENGINE_OPTIONS = { model: new URL("/models/", location.href), storeName: STORE_NAME };
let ready = null; // the engine's open(); later calls wait for it
let config = null; // the default configuration, from the scores worker
let input = { docs: [], labels: new Map(), source: "" };
let run = null; // {docs, byId, outcome, seconds}
let scoresWorker = null;

// ---------- progress and state ----------

function setProgress(text, fraction = null, isError = false) {
  const bar = $("progress");
  if (fraction === null) bar.removeAttribute("value");
  else bar.value = fraction;
  $("progress-label").textContent = text;
  $("progress-label").classList.toggle("error", isError);
}

engine.addEventListener("progress", ({ detail: { stage, done, total } }) => {
  const words = STAGE_WORDS[stage] ?? stage;
  setProgress(total ? `${words}: ${done} / ${total}` : `${words}…`, total ? done / total : null);
});

function setBusy(busy) {
  for (const id of ["run", "load-sample", "files", "clear", "query-run"]) $(id).disabled = busy;
  $("run").disabled = busy || !input.docs.length;
  $("cancel").disabled = !busy;
}

function showStored(size) {
  $("stored").textContent = `Stored signatures: ${size}`;
  $("stored").dataset.count = String(size);
}

// ---------- input ----------

function useInput(docs, source, labels = new Map()) {
  input = { docs, labels, source };
  $("input-status").textContent = docs.length ? `${docs.length} documents ${source}.` : "";
  $("input-status").classList.remove("error");
  $("run").disabled = !docs.length || !$("cancel").disabled;
}

function inputError(message) {
  input = { docs: [], labels: new Map(), source: "" };
  $("input-status").textContent = message;
  $("input-status").classList.add("error");
  $("run").disabled = true;
}

$("paste").addEventListener("input", () => {
  try {
    useInput(withIds(splitParagraphs($("paste").value).map((text) => ({ text }))), "from the text box");
  } catch (e) {
    inputError(e.message);
  }
});

async function readFiles(files) {
  try {
    const records = [];
    for (const file of files) records.push(...parseFile(file.name, await file.text()));
    useInput(withIds(records), `from ${files.length === 1 ? files[0].name : `${files.length} files`}`);
  } catch (e) {
    inputError(e.message);
  }
}

$("files").addEventListener("change", () => readFiles([...$("files").files]));
const drop = $("drop");
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  readFiles([...e.dataTransfer.files]);
});

$("load-sample").addEventListener("click", async () => {
  const rows = (await (await fetch("sample.jsonl")).text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const types = [...new Set(rows.map((r) => r.type))].join(", ");
  useInput(
    rows.map(({ id, text }) => ({ id: String(id), text })),
    `from the sample (labelled ${types})`,
    new Map(rows.map((r) => [String(r.id), r.type])),
  );
});

// ---------- a run ----------

$("run").addEventListener("click", async () => {
  const docs = input.docs;
  setBusy(true);
  scoresWorker?.terminate();
  try {
    await ready.catch(() => {}); // after a cancelled open, the call itself reopens
    setProgress("Starting…");
    const started = performance.now();
    const outcome = await engine.dedup(docs);
    const seconds = (performance.now() - started) / 1000;
    run = { docs, byId: new Map(docs.map((d) => [d.id, d])), outcome, seconds, labels: input.labels };
    renderResults();
    scorePairs();
    // The run's documents replace any stored under the same ids.
    const replaced = await engine.remove(docs.map((d) => d.id));
    await engine.add(docs);
    showStored(await engine.size());
    setProgress(
      `Done: ${docs.length} documents in ${seconds.toFixed(1)} s; ${docs.length - replaced} new signatures stored, ${replaced} replaced.`,
      1,
    );
  } catch (e) {
    if (e.name === "AbortError") setProgress("Cancelled.", 0);
    else setProgress(`Failed: ${e.message}`, 0, true);
  } finally {
    setBusy(false);
  }
});

$("cancel").addEventListener("click", () => {
  engine.cancel();
  scoresWorker?.terminate();
});

// ---------- results ----------

function badge(kind, text = KIND_LABEL[kind] ?? kind) {
  return Object.assign(document.createElement("span"), { className: `badge ${kind}`, textContent: text });
}

function excerpt(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function docLine(doc, result) {
  const li = element("li", "doc");
  li.dataset.id = doc.id;
  li.dataset.relation = result.relation;
  li.dataset.cluster = String(result.cluster);
  const head = element("div", "doc-head");
  if (result.relation === "none") head.append(badge("representative", "representative"));
  else head.append(badge(KIND[result.relation], result.relation.replace("_", " ")));
  head.append(element("code", "id", doc.id));
  const label = run.labels.get(doc.id);
  if (label) head.append(element("span", "label", `labelled ${label}`));
  if (result.relation !== "none") {
    head.append(element("span", "score", `${RELATION_WORDS[result.relation]} ${result.parent} · score ${result.score.toFixed(2)}`));
    const inspect = element("button", "inspect", "Inspect");
    inspect.type = "button";
    inspect.setAttribute("aria-label", `Inspect ${doc.id} beside ${result.parent}`);
    inspect.addEventListener("click", () => openPair(result.parent, doc.id, inspect));
    head.append(inspect);
  }
  li.append(head, element("p", "excerpt", excerpt(doc.text)));
  return li;
}

function renderResults() {
  const { docs, byId, outcome, seconds } = run;
  const members = new Map();
  for (const result of outcome.docs) members.set(result.cluster, [...(members.get(result.cluster) ?? []), result]);
  const groups = [...members.values()];
  const clusters = groups.filter((g) => g.length > 1).sort((a, b) => b.length - a.length || a[0].cluster - b[0].cluster);
  const singles = groups.filter((g) => g.length === 1).map(([r]) => r);

  const perKind = { exact: 0, near: 0, paraphrase: 0, contains: 0 };
  for (const r of outcome.docs) if (r.relation !== "none") perKind[KIND[r.relation]] += 1;

  const summary = $("summary");
  summary.replaceChildren();
  // key: what the test and styles find the figure by; a badge for duplicate kinds.
  const add = (key, value, label = key) => {
    const dt = element("dt");
    dt.append(KIND_LABEL[key] ? badge(key) : label);
    const dd = element("dd", "", String(value));
    dd.dataset.kind = key;
    const item = element("div", "stat");
    item.append(dt, dd);
    summary.append(item);
  };
  add("documents", docs.length);
  add("clusters", clusters.length, "clusters with duplicates");
  for (const [kind, n] of Object.entries(perKind)) add(kind, n);
  add("snippet", outcome.snippets.length);
  add("seconds", seconds.toFixed(1));

  drawBars(
    $("chart-types"),
    [...Object.entries(perKind).map(([kind, value]) => ({ label: KIND_LABEL[kind], value, kind })), { label: "snippets", value: outcome.snippets.length, kind: "snippet" }],
  );
  $("chart-scores").replaceChildren(element("p", "hint", "Scoring the pairs…"));

  const list = $("clusters");
  list.replaceChildren();
  for (const group of clusters.slice(0, MAX_CLUSTERS_SHOWN)) {
    const article = element("article", "cluster");
    article.dataset.cluster = String(group[0].cluster);
    const kinds = [...new Set(group.filter((r) => r.relation !== "none").map((r) => KIND[r.relation]))];
    const head = element("h4", "", `Cluster ${group[0].cluster} · ${group.length} documents `);
    head.append(...kinds.map((k) => badge(k)));
    const ul = element("ul", "members");
    // The representative first, then members in input order.
    for (const r of [...group].sort((a, b) => (a.relation === "none" ? -1 : b.relation === "none" ? 1 : 0))) ul.append(docLine(byId.get(r.id), r));
    article.append(head, ul);
    list.append(article);
  }
  if (clusters.length > MAX_CLUSTERS_SHOWN) {
    list.append(element("p", "hint", `${clusters.length - MAX_CLUSTERS_SHOWN} more clusters are in the export.`));
  }
  if (!clusters.length) list.append(element("p", "hint", "No duplicates found."));

  const snippets = $("snippets");
  snippets.replaceChildren();
  for (const snippet of outcome.snippets.slice(0, MAX_CLUSTERS_SHOWN)) {
    const article = element("article", "snippet");
    article.dataset.docs = JSON.stringify(snippet.docs.map(String));
    const head = element("div", "doc-head");
    head.append(badge("snippet"), element("span", "score", `${snippet.words} words, in ${snippet.docs.length} documents: ${snippet.docs.join(", ")}`));
    const inspect = element("button", "inspect", "Inspect two of them");
    inspect.type = "button";
    inspect.addEventListener("click", () => openPair(String(snippet.docs[0]), String(snippet.docs[1]), inspect));
    head.append(inspect);
    article.append(head, element("blockquote", "", `“${snippet.text}”`));
    snippets.append(article);
  }
  if (!outcome.snippets.length) snippets.append(element("p", "hint", "No snippet is shared by enough documents."));

  $("singles").querySelector("summary").textContent = `${singles.length} documents without duplicates`;
  $("singles-list").replaceChildren(...singles.slice(0, MAX_SINGLES_SHOWN).map((r) => docLine(byId.get(r.id), r)));
  if (singles.length > MAX_SINGLES_SHOWN) {
    $("singles-list").append(element("li", "hint", `${singles.length - MAX_SINGLES_SHOWN} more are in the export.`));
  }
  $("results").hidden = false;
}

// ---------- histogram of pair scores (lite worker) ----------

function histogramPairs(docs, outcome) {
  const n = docs.length;
  const index = new Map(docs.map((d, i) => [d.id, i]));
  const pairs = [];
  if ((n * (n - 1)) / 2 <= MAX_PAIRS) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([i, j]);
    return pairs;
  }
  const seen = new Set();
  const take = (i, j) => {
    const key = Math.min(i, j) * n + Math.max(i, j);
    if (i === j || seen.has(key)) return;
    seen.add(key);
    pairs.push([i, j]);
  };
  for (const r of outcome.docs) if (r.parent !== undefined && pairs.length < MAX_PAIRS / 2) take(index.get(r.id), index.get(r.parent));
  // A fixed-seed sample of the other pairs (xorshift), so a rerun draws the same.
  let state = 2463534242;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  while (pairs.length < MAX_PAIRS) take(next(), next());
  return pairs;
}

function scorePairs() {
  const { docs, outcome } = run;
  const clusterOf = new Map(outcome.docs.map((r) => [r.id, r.cluster]));
  const pairs = histogramPairs(docs, outcome);
  scoresWorker = new Worker(new URL("scores-worker.js", import.meta.url), { type: "module" });
  const target = $("chart-scores");
  scoresWorker.onmessage = ({ data }) => {
    if (data.progress) {
      target.replaceChildren(element("p", "hint", `Scoring the pairs: ${data.progress.done} / ${data.progress.total}`));
      return;
    }
    scoresWorker.terminate();
    scoresWorker = null;
    if (data.error) {
      target.replaceChildren(element("p", "hint error", `Could not score the pairs: ${data.error}`));
      return;
    }
    config = data.config;
    // Short and longer texts are decided on different signals: one histogram each.
    const groups = [
      { short: 1, title: "Short texts: char 5-gram similarity", at: config.decide.short_threshold },
      { short: 0, title: "Longer texts: weighted token similarity", at: config.decide.threshold },
    ];
    target.replaceChildren(
      ...groups.map(({ short, title, at }) => {
        const scored = [];
        pairs.forEach(([i, j], k) => {
          if (data.short[k] !== short) return;
          scored.push({ score: data.similarity[k], same: clusterOf.get(docs[i].id) === clusterOf.get(docs[j].id) });
        });
        const chartBox = element("div", "histogram");
        chartBox.append(element("h4", "", `${title} (${scored.length} pairs)`));
        const plot = element("div");
        drawHistogram(plot, scored, [{ at, label: "decision boundary" }]);
        chartBox.append(plot);
        return chartBox;
      }),
      element(
        "p",
        "hint",
        `${pairs.length < (docs.length * (docs.length - 1)) / 2 ? "The linked pairs and a sample of the others" : "Every pair"}; ` +
          "a pair is short when both texts are. Pairs of one cluster left of a boundary were linked by containment, " +
          "by meaning (paraphrase) or through a third document.",
      ),
    );
  };
  scoresWorker.postMessage({ docs, pairs });
}

// ---------- pair inspector ----------

function renderRuns(container, runs) {
  container.replaceChildren(
    ...runs.map(({ text, shared }) =>
      shared === null ? document.createTextNode(text) : Object.assign(element("mark", shared ? "same" : "only"), { textContent: text }),
    ),
  );
}

function signalBar(name, value, threshold, note) {
  const row = element("div", "signal");
  row.append(element("span", "signal-name", name));
  const track = element("div", "track");
  if (value === null || value === undefined) {
    track.classList.add("absent");
    track.textContent = note;
  } else {
    track.setAttribute("role", "meter");
    track.setAttribute("aria-label", name);
    track.setAttribute("aria-valuemin", "0");
    track.setAttribute("aria-valuemax", "1");
    track.setAttribute("aria-valuenow", value.toFixed(3));
    const fill = element("div", "fill");
    fill.style.width = `${Math.max(0, Math.min(1, value)) * 100}%`;
    track.append(fill);
    if (threshold !== undefined) {
      const tick = element("div", "tick");
      tick.style.left = `${threshold * 100}%`;
      tick.title = `threshold ${threshold.toFixed(2)}`;
      track.append(tick);
    }
  }
  row.append(track, element("span", "signal-value", value === null || value === undefined ? "–" : value.toFixed(2)));
  return row;
}

let returnFocus = null;

async function openPair(leftId, rightId, opener) {
  const left = run.byId.get(leftId);
  const right = run.byId.get(rightId);
  returnFocus = opener;
  $("left-title").textContent = left.id;
  $("right-title").textContent = right.id;
  const diff = wordDiff(left.text, right.text);
  renderRuns($("left"), diff.left);
  renderRuns($("right"), diff.right);
  $("verdict").textContent = "Comparing…";
  $("signals").replaceChildren();
  $("decision").replaceChildren();
  $("inspector").showModal();

  let comparison;
  try {
    comparison = await engine.compare(left.text, right.text);
  } catch (e) {
    $("verdict").textContent = `Could not compare: ${e.message}`;
    return;
  }
  const { duplicate, relation, score, signals } = comparison;
  $("verdict").textContent = duplicate
    ? `Duplicate: ${left.id} ${VERDICT_WORDS[relation]} ${right.id} (score ${score.toFixed(2)}).`
    : `Not a duplicate (score ${score.toFixed(2)}).`;
  $("verdict").className = `verdict ${duplicate ? "yes" : "no"}`;
  const decide = config?.decide ?? {};
  const short = Math.max(...signals.chars) <= (decide.short_max_chars ?? 300);
  const containment = signals.a_in_b === null ? null : Math.max(signals.a_in_b, signals.b_in_a);
  $("signals").replaceChildren(
    signalBar("char", signals.char_sim, short ? decide.short_threshold : undefined),
    signalBar("token", signals.weighted_sim, short ? undefined : decide.threshold),
    signalBar("semantic", signals.cosine, decide.semantic_threshold, "not computed: a text is over the short-text length"),
    signalBar("contained", containment, decide.containment_threshold, "too short for passage samples"),
    element("p", "hint", `${diff.sharedWords} words shared in order; exact after normalization: ${signals.exact ? "yes" : "no"}.`),
  );

  // The decider's belief: a learned boundary gives a probability and an
  // uncertainty; the threshold rules (the default) give neither.
  const decision = $("decision");
  if (comparison.probability == null) {
    decision.append(element("p", "hint", "Decided by the threshold rules (the default): no probability or gate weights. A judge is asked only about a learned boundary's uncertain pairs."));
  } else {
    decision.append(signalBar("p(duplicate)", comparison.probability), signalBar("uncertainty", comparison.uncertainty));
  }
  decision.append(element("p", "", `Judge asked: ${comparison.judged ? "yes" : "no"}`));
}

$("inspector-close").addEventListener("click", () => $("inspector").close());
$("inspector").addEventListener("close", () => returnFocus?.focus());

// ---------- export, store, query ----------

$("export-jsonl").addEventListener("click", () => download("semhash-clusters.jsonl", toJsonl(run.outcome.docs), "application/x-ndjson"));
$("export-csv").addEventListener("click", () => download("semhash-clusters.csv", toCsv(run.outcome.docs), "text/csv"));

$("clear").addEventListener("click", async () => {
  setBusy(true);
  try {
    await ready.catch(() => {});
    ready = engine.clear();
    showStored((await ready).size);
    setProgress("Stored signatures cleared.", 0);
  } catch (e) {
    setProgress(e.name === "AbortError" ? "Cancelled." : `Failed: ${e.message}`, 0, e.name !== "AbortError");
  } finally {
    setBusy(false);
  }
});

$("query-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("query").value.trim();
  if (!text) return;
  const out = $("query-result");
  out.replaceChildren(element("li", "hint", "Checking…"));
  try {
    await ready.catch(() => {});
    const matches = await engine.query(text);
    out.replaceChildren(
      ...(matches.length
        ? matches.slice(0, 10).map((m) => {
            const li = element("li");
            li.append(badge(KIND[m.relation] ?? m.relation, m.relation.replace("_", " ")), element("code", "id", m.id), element("span", "score", ` score ${m.score.toFixed(2)}`));
            return li;
          })
        : [element("li", "hint", "No stored document is a duplicate of this text.")]),
    );
  } catch (err) {
    out.replaceChildren(element("li", "error", err.name === "AbortError" ? "Cancelled." : `Failed: ${err.message}`));
  }
});

// ---------- start ----------

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("sw.js").catch((e) => ($("engine").dataset.offline = `no offline copy: ${e.message}`));
}

ready = engine.open(ENGINE_OPTIONS);
$("engine").textContent = "Loading the engine: wasm and the encoder model (about 40 MB, kept for the next visit)…";
setBusy(true);
ready
  .then(({ size }) => {
    $("engine").textContent = "Ready: lexical stages and the semantic encoder, running in a Web Worker.";
    $("engine").classList.add("ready");
    showStored(size);
    setProgress("Idle", 0);
  })
  .catch((e) => {
    $("engine").textContent = e.name === "AbortError" ? "Loading cancelled; it resumes with the next run." : `The engine failed to load: ${e.message}`;
    $("engine").classList.add("error");
  })
  .finally(() => setBusy(false));
