// The demo page (www/) in headless Chromium with the real package and model:
// the sample's clusters as its labels say, the pair inspector, exports,
// signatures kept across a reload, phone width, cancel, offline after the
// first visit, no console errors. Takes screenshots into a temporary folder;
// SEMHASH_SCREENSHOTS=1 writes them over the committed www/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdirSync, statSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { root } from "./helpers.mjs";
import { serve } from "./serve.mjs";
import { launch } from "./browser.mjs";
import { checkOutcome, expectedClusters, expectedSnippets } from "../../www/expected.mjs";

const rows = readFileSync(join(root, "www", "sample.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));
// A test run leaves the working tree as it was: the committed screenshots change only on request.
const keepScreenshots = process.env.SEMHASH_SCREENSHOTS === "1";
const screenshots = keepScreenshots
  ? join(root, "www", "screenshots")
  : join(tmpdir(), `semhash-demo-screenshots-${process.pid}`);
// The encoder in wasm on a small shared machine: loading and a run take seconds, not milliseconds.
const SLOW = { timeout: 180_000 };

let server, browser, page;
const problems = [];

before(async () => {
  mkdirSync(screenshots, { recursive: true });
  server = await serve(root);
  browser = await launch();
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  await page.goto(`${server.url}/www/`);
  await page.locator("#engine.ready").waitFor(SLOW);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (!keepScreenshots) rmSync(screenshots, { recursive: true, force: true });
});

async function screenshot(name) {
  const path = join(screenshots, name);
  await page.screenshot({ path });
  assert.ok(statSync(path).size < 300_000, `${name} is over 300 KB`);
}

/** The outcome as the page shows it: each document's cluster and relation, the snippets' holders. */
const shownOutcome = () =>
  page.evaluate(() => ({
    docs: [...document.querySelectorAll("li.doc")].map((li) => ({ id: li.dataset.id, cluster: Number(li.dataset.cluster), relation: li.dataset.relation })),
    snippets: [...document.querySelectorAll("article.snippet")].map((a) => ({ docs: JSON.parse(a.dataset.docs) })),
  }));

const figure = async (kind) => Number(await page.locator(`#summary dd[data-kind="${kind}"]`).textContent());

test("the sample runs in the worker and the clusters are the ones its labels say", SLOW, async () => {
  await page.click("#load-sample");
  await page.locator("#run:enabled").waitFor();
  await page.click("#run");
  // The page answers at once while the worker runs.
  await page.locator("#cancel:enabled").waitFor();
  const started = Date.now();
  await page.evaluate(() => document.getElementById("progress-label").textContent);
  assert.ok(Date.now() - started < 1000, "the main thread is free during the run");
  await page.locator("#progress-label", { hasText: /^Done/ }).waitFor(SLOW);

  const outcome = await shownOutcome();
  assert.equal(outcome.docs.length, rows.length, "every document is shown once");
  assert.deepEqual(checkOutcome(rows, outcome), []);

  const { perType } = expectedClusters(rows);
  const clusters = Object.values(perType).reduce((a, b) => a + b, 0);
  assert.equal(await figure("documents"), rows.length);
  assert.equal(await figure("clusters"), clusters);
  assert.equal(await page.locator("article.cluster").count(), clusters);
  assert.equal(await figure("paraphrase"), perType.paraphrase, "one paraphrase link per verse pair");
  assert.equal(await figure("contains"), perType.contain, "one containment link per chapter and excerpt");
  assert.ok((await figure("snippet")) >= expectedSnippets(rows).length, "the viral quote is reported");
  // Every other duplicate is an exact copy or a near duplicate.
  const linked = rows.length - outcome.docs.filter((d) => d.relation === "none").length;
  assert.equal((await figure("exact")) + (await figure("near")), linked - perType.paraphrase - perType.contain);

  await page.locator("#chart-scores svg").first().waitFor(SLOW);
  assert.equal(await page.locator("#chart-scores line.boundary").count(), 2, "a boundary for short and for longer texts");
  await page.locator("#results").scrollIntoViewIfNeeded();
  await page.evaluate(() => document.getElementById("results").scrollIntoView());
  await screenshot("desktop.png");
});

test("the pair inspector highlights shared and differing words and shows the signals", SLOW, async () => {
  const inspect = page.locator('li.doc[data-relation="near"] button.inspect').first();
  await inspect.click();
  await page.locator("#verdict", { hasText: /^Duplicate/ }).waitFor(SLOW);
  assert.ok((await page.locator("#left mark.same").count()) > 0, "shared words are highlighted");
  assert.ok((await page.locator("#left mark.only, #right mark.only").count()) > 0, "differing words are highlighted");
  assert.equal(await page.locator("#signals .signal").count(), 4);
  const decision = await page.locator("#decision").textContent();
  // The demo runs the default threshold rules: they state no probability, and no judge is asked.
  assert.match(decision, /threshold rules/);
  assert.match(decision, /Judge asked: no/);
  await screenshot("desktop-inspector.png");
  await page.keyboard.press("Escape");
  await page.locator("#inspector").waitFor({ state: "hidden" });
  assert.equal(await inspect.evaluate((b) => b === document.activeElement), true, "focus returns to the button");
});

test("clusters export as JSONL and CSV, one line per document", async () => {
  for (const [button, header] of [["#export-jsonl", 0], ["#export-csv", 1]]) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click(button)]);
    const lines = readFileSync(await download.path(), "utf8").trim().split(/\r?\n/);
    assert.equal(lines.length, rows.length + header);
  }
});

test("the page is readable at phone width", SLOW, async () => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.evaluate(() => document.getElementById("results").scrollIntoView());
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 375, `the page is ${overflow} px wide`);
  await screenshot("phone.png");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("signatures stay stored across a reload and can be cleared", SLOW, async () => {
  await page.reload();
  await page.locator("#engine.ready").waitFor(SLOW);
  const distinctIds = new Set(rows.map((r) => r.id)).size;
  assert.equal(await page.locator("#stored").getAttribute("data-count"), String(distinctIds));

  // A stored text, copied in upper case, is found in the store.
  const paraphrase = rows.find((r) => r.type === "hot");
  await page.fill("#query", paraphrase.text.toUpperCase());
  await page.click("#query-run");
  await page.locator("#query-result code.id").first().waitFor(SLOW);

  await page.click("#clear");
  await page.locator('#stored[data-count="0"]').waitFor(SLOW);
});

test("a run can be cancelled", SLOW, async () => {
  await page.click("#load-sample");
  await page.click("#run");
  await page.locator("#cancel:enabled").click();
  await page.locator("#progress-label", { hasText: /^Cancelled/ }).waitFor(SLOW);
  assert.equal(await page.locator("#run").isEnabled(), true);
});

test("once loaded, the page and the run work offline", SLOW, async () => {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await browser.context.setOffline(true);
  await server.close();
  await page.reload();
  await page.locator("#engine.ready").waitFor(SLOW);
  await page.click("#load-sample");
  await page.click("#run");
  await page.locator("#progress-label", { hasText: /^Done/ }).waitFor(SLOW);
  assert.deepEqual(checkOutcome(rows, await shownOutcome()), []);
});

test("no console errors", () => {
  assert.deepEqual(problems, []);
});
