// The npm package in headless Chromium: IndexedDB persistence across a page
// reload, schema migration, the Web Worker with progress and cancellation,
// the known-answer vectors, the full build's semantic stage in the Web Worker
// (model files fetched once, then from the Cache API), and no console errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { root, sample, vectors, PARAPHRASES, UNRELATED } from "./helpers.mjs";
import { serve } from "./serve.mjs";
import { launch } from "./browser.mjs";

let server, browser, page;
const problems = [];

before(async () => {
  server = await serve(root);
  browser = await launch();
  page = await browser.context.newPage();
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${server.url}/tests/js/pages/index.html`);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const docs = sample().map(({ id, text }) => ({ id, text }));

test("signatures stored in IndexedDB survive a page reload and find the duplicate", async () => {
  const added = await page.evaluate(async (docs) => {
    const { SemHash, IndexedDBStore } = await import("/pkg/index.browser.js");
    const store = new IndexedDBStore("reload-test");
    await store.clear();
    const semhash = await SemHash.open({ store });
    return semhash.add(docs);
  }, docs.slice(0, 40));
  assert.equal(added, 40);

  await page.reload();
  const after = await page.evaluate(async (probe) => {
    const { SemHash, IndexedDBStore } = await import("/pkg/index.browser.js");
    const store = new IndexedDBStore("reload-test");
    const semhash = await SemHash.open({ store });
    return { size: semhash.size, count: await store.count(), matches: semhash.query(probe) };
  }, docs[0].text.toUpperCase() + "  ");
  assert.equal(after.size, 40);
  assert.equal(after.count, 40);
  assert.equal(after.matches[0]?.id, docs[0].id);
  assert.equal(after.matches[0]?.relation, "exact");
});

test("a database of schema version 1 migrates and keeps its signatures", async () => {
  const result = await page.evaluate(async (texts) => {
    const { SemHash, IndexedDBStore, SCHEMA_VERSION } = await import("/pkg/index.browser.js");
    const signer = await SemHash.open();
    const name = "migration-test";
    await new Promise((ok, fail) => {
      const del = indexedDB.deleteDatabase(name);
      del.onsuccess = ok;
      del.onerror = fail;
    });
    // Version 1, as the first release wrote it: no order index, no nextSeq.
    await new Promise((ok, fail) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => {
        open.result.createObjectStore("signatures", { keyPath: "id" });
        open.result.createObjectStore("meta");
      };
      open.onsuccess = () => {
        const tx = open.result.transaction(["signatures", "meta"], "readwrite");
        texts.forEach((t, i) => tx.objectStore("signatures").put({ id: `old${i}`, signature: signer.sign(t) }));
        tx.objectStore("meta").put(signer.fingerprint, "fingerprint");
        tx.oncomplete = () => {
          open.result.close();
          ok();
        };
        tx.onerror = fail;
      };
      open.onerror = fail;
    });
    const semhash = await SemHash.open({ store: new IndexedDBStore(name) });
    await semhash.add([{ id: "new", text: "A document added after the migration." }]);
    const reopened = await SemHash.open({ store: new IndexedDBStore(name) });
    return { version: SCHEMA_VERSION, size: reopened.size, match: reopened.query(texts[1])[0]?.id };
  }, [docs[1].text, docs[2].text]);
  assert.equal(result.version, 2);
  assert.equal(result.size, 3);
  assert.equal(result.match, "old1");
});

test("a store made under another configuration is refused", async () => {
  const error = await page.evaluate(async () => {
    const { SemHash, IndexedDBStore, defaultConfig } = await import("/pkg/index.browser.js");
    const config = defaultConfig();
    config.sketch.word_ngram = 2;
    try {
      await SemHash.open({ config, store: new IndexedDBStore("reload-test") });
      return null;
    } catch (e) {
      return { name: e.name, message: e.message };
    }
  });
  assert.equal(error?.name, "FingerprintMismatch");
  assert.match(error.message, /reload-test/);
});

test("two tabs on one IndexedDB store: a commit from a stale view is refused and writes nothing", async () => {
  const open = async (p) => {
    await p.goto(`${server.url}/tests/js/pages/index.html`);
    return p;
  };
  const [first, second] = [page, await open(await browser.context.newPage())];
  const add = (p, ids) =>
    p.evaluate(async (ids) => {
      const { SemHash, IndexedDBStore } = await import("/pkg/index.browser.js");
      globalThis.tabs ??= await SemHash.open({ store: new IndexedDBStore("tabs-test") });
      try {
        await globalThis.tabs.add(ids.map((id) => ({ id, text: `Document ${id} of a tab, with words of its own: ${id.repeat(3)}.` })));
        return { ok: globalThis.tabs.size };
      } catch (e) {
        return { error: e.name, message: e.message };
      }
    }, ids);
  const count = (p) => p.evaluate(async () => new (await import("/pkg/index.browser.js")).IndexedDBStore("tabs-test").count());
  await first.evaluate(async () => {
    const { IndexedDBStore } = await import("/pkg/index.browser.js");
    await new IndexedDBStore("tabs-test").clear();
    globalThis.tabs = undefined;
  });

  assert.deepEqual(await add(first, ["a1", "a2"]), { ok: 2 });
  assert.deepEqual(await add(second, ["b1", "shared"]), { ok: 4 }, "the second tab sees the first's documents");
  // The first tab's view predates the second's commit: refused, nothing written.
  const stale = await add(first, ["shared", "a3"]);
  assert.equal(stale.error, "StoreChanged", JSON.stringify(stale));
  assert.match(stale.message, /tabs-test.*another tab/);
  assert.equal(await count(second), 4);
  // Reopened, it sees both tabs' documents and adds its own.
  await first.evaluate(() => (globalThis.tabs = undefined));
  assert.deepEqual(await add(first, ["a3"]), { ok: 5 });
  assert.equal(await count(second), 5);
  await second.close();
});

test("a page closed while its Web Worker adds a long batch leaves whole batches, and the rest adds on reopen", async () => {
  const big = Array.from({ length: 3000 }, (_, i) => ({ id: `c${i}`, text: `${docs[i % docs.length].text} (copy ${i})` }));
  const tab = await browser.context.newPage();
  await tab.goto(`${server.url}/tests/js/pages/index.html`);
  await tab.evaluate(async () => {
    const { IndexedDBStore } = await import("/pkg/index.browser.js");
    await new IndexedDBStore("close-test").clear();
  });
  // Start adding in batches of 50 and close the page once a few have landed.
  await tab.evaluate((big) => {
    (async () => {
      const { WorkerSemHash } = await import("/pkg/index.browser.js");
      const worker = new WorkerSemHash(new URL("/pkg/worker.js", location.href));
      await worker.open({ storeName: "close-test" });
      globalThis.adding = worker.add(big, { chunk: 50 });
    })();
  }, big);
  const count = (p) => p.evaluate(async () => new (await import("/pkg/index.browser.js")).IndexedDBStore("close-test").count());
  const started = Date.now();
  while ((await count(page)) < 150 && Date.now() - started < 60000) await new Promise((ok) => setTimeout(ok, 20));
  await tab.close();

  const left = await count(page);
  assert.ok(left >= 150 && left < big.length, `${left} stored when the page closed`);
  assert.equal(left % 50, 0, `${left}: whole batches only`);
  const after = await page.evaluate(async (big) => {
    const { SemHash, IndexedDBStore } = await import("/pkg/index.browser.js");
    const semhash = await SemHash.open({ store: new IndexedDBStore("close-test") });
    const before = semhash.size;
    await semhash.add(big.filter((d) => !semhash.has(d.id)));
    return { before, size: semhash.size, match: semhash.query(big[7].text).find((m) => m.id === "c7")?.relation };
  }, big);
  assert.equal(after.before, left, "the reopened store loads what was committed");
  assert.equal(after.size, big.length);
  assert.equal(after.match, "exact");
});

test("the Web Worker reports progress, can be cancelled, keeps what it committed, and clears", async () => {
  const result = await page.evaluate(async (docs) => {
    const { WorkerSemHash, IndexedDBStore } = await import("/pkg/index.browser.js");
    await new IndexedDBStore("worker-test").clear();
    const worker = new WorkerSemHash(new URL("/pkg/worker.js", location.href));
    const events = [];
    worker.addEventListener("progress", (e) => events.push(e.detail));
    await worker.open({ storeName: "worker-test" });
    const added = await worker.add(docs, { chunk: 50 });
    const matches = (await worker.query(docs[3].text)).map((m) => m.id);

    // A long batch job, cancelled as soon as it reports progress.
    const big = Array.from({ length: 20000 }, (_, i) => ({ id: `b${i}`, text: `${docs[i % docs.length].text} ${i}` }));
    const running = worker.dedup(big);
    await new Promise((ok) => worker.addEventListener("progress", (e) => e.detail.op === "dedup" && ok(), { once: false }));
    worker.cancel();
    let cancelled = null;
    try {
      await running;
    } catch (e) {
      cancelled = e.name;
    }
    // The next call starts a fresh worker on the same store.
    const size = await worker.size();
    const cleared = await worker.clear();
    const sizeAfterClear = await worker.size();
    worker.close();
    return { added, matches, cancelled, size, cleared: cleared.size, sizeAfterClear, stored: await new IndexedDBStore("worker-test").count(), addEvents: events.filter((e) => e.op === "add").map((e) => e.done) };
  }, docs);
  assert.equal(result.added, docs.length);
  assert.ok(result.matches.includes(docs[3].id), `${docs[3].id} in ${result.matches}`);
  assert.deepEqual(result.addEvents.slice(0, 3), [50, 100, 150]);
  assert.equal(result.addEvents.at(-1), docs.length);
  assert.equal(result.cancelled, "AbortError");
  assert.equal(result.size, docs.length);
  assert.deepEqual([result.cleared, result.sizeAfterClear, result.stored], [0, 0, 0], "clear() empties the index and the store");
});

test("lexical signatures in Chromium match the native known-answer vectors", async () => {
  const v = vectors();
  const got = await page.evaluate(async (texts) => {
    const { SemHash } = await import("/pkg/index.browser.js");
    const semhash = await SemHash.open();
    return semhash.signBatch(texts).map((b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(""));
  }, v.vectors.map((x) => x.text));
  v.vectors.forEach((x, i) => assert.equal(got[i], x.bytes, `vector ${i}`));
});

test("the full build in the Web Worker finds a stored verse's paraphrase after a reload; model files are fetched once", async () => {
  const modelRequests = [];
  const onRequest = (r) => r.url().includes("/models/") && modelRequests.push(r.url());
  browser.context.on("request", onRequest);
  const stored = PARAPHRASES.map(([kjv], i) => ({ id: `kjv${i}`, text: kjv }))
    .concat(UNRELATED.map((text, i) => ({ id: `other${i}`, text })));
  const first = await page.evaluate(async (docs) => {
    const { WorkerSemHash } = await import("/pkg/worker-client.js");
    const worker = new WorkerSemHash(new URL("/pkg/worker.js", location.href));
    const opened = await worker.open({ storeName: "semantic-test", model: "/models/" });
    await worker.add(docs);
    worker.close();
    const cache = await caches.open("semhash-llm-models-v1");
    return { opened, cached: (await cache.keys()).map((r) => new URL(r.url).pathname).sort() };
  }, stored);
  assert.equal(first.opened.semantic, true);
  assert.deepEqual(first.cached, ["/models/SHA256SUMS", "/models/sph-128.bin", "/models/student.onnx", "/models/tokenizer.json"]);
  const fetchedFirst = modelRequests.length;

  await page.reload();
  const after = await page.evaluate(async (probes) => {
    const { WorkerSemHash } = await import("/pkg/worker-client.js");
    const worker = new WorkerSemHash(new URL("/pkg/worker.js", location.href));
    const opened = await worker.open({ storeName: "semantic-test", model: "/models/" });
    const matches = await worker.queryMany(probes);
    worker.close();
    return { size: opened.size, matches };
  }, PARAPHRASES.map(([, web]) => web));
  browser.context.off("request", onRequest);
  assert.equal(after.size, stored.length);
  after.matches.forEach((found, i) => {
    assert.deepEqual(found.map((m) => [m.id, m.relation]), [[`kjv${i}`, "paraphrase"]], JSON.stringify(found));
  });
  assert.equal(fetchedFirst, 4, modelRequests.join(" "));
  assert.equal(modelRequests.length, 4, `no model file fetched again after the reload: ${modelRequests.join(" ")}`);
});

test("no console errors", () => {
  assert.deepEqual(problems, []);
});
