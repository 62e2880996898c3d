// A Cloudflare Worker that de-duplicates documents POSTed to it against the
// documents it has seen (kept per isolate, in memory).
//
//   POST /dedup  {"documents": [{"id": "a", "text": "..."}]}
//   -> {"results": [{"id": "a", "duplicate": false, "matches": []}], "stored": 1}
//
// Each document is checked against everything stored before it (earlier
// requests and earlier documents of the same request), then stored under its
// id unless that id is stored already. Bad requests get a 4xx with a message.
// The index lives in the isolate's memory (`store: null`: nothing to persist);
// a store over a KV namespace or a Durable Object would keep it across isolates.

import { SemHash, memoryBytes } from "semhash-llm";

const MAX_BODY_BYTES = 1 << 20;
const MAX_DOCUMENTS = 1000;

let semhash = null;

function json(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

const reject = (status, error) => json(status, { error });

/** The request's documents, or the reason they cannot be used. */
async function documentsOf(request) {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) return { status: 413, error: `body over ${MAX_BODY_BYTES} bytes` };
  const raw = await request.arrayBuffer();
  if (raw.byteLength > MAX_BODY_BYTES) return { status: 413, error: `body over ${MAX_BODY_BYTES} bytes` };
  let body;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    return { status: 400, error: "body is not valid JSON (UTF-8)" };
  }
  const docs = body?.documents;
  if (!Array.isArray(docs)) return { status: 400, error: 'expected {"documents": [{"id": ..., "text": ...}]}' };
  if (docs.length > MAX_DOCUMENTS) return { status: 413, error: `more than ${MAX_DOCUMENTS} documents` };
  const seen = new Set();
  for (const [i, doc] of docs.entries()) {
    if (typeof doc?.id !== "string" && typeof doc?.id !== "number") {
      return { status: 400, error: `documents[${i}].id must be a string or a number` };
    }
    if (typeof doc.text !== "string" || doc.text.trim() === "") {
      return { status: 400, error: `documents[${i}].text must be a non-empty string` };
    }
    if (seen.has(String(doc.id))) return { status: 400, error: `documents[${i}]: id ${JSON.stringify(doc.id)} repeated` };
    seen.add(String(doc.id));
  }
  return { docs };
}

export default {
  async fetch(request) {
    const { pathname } = new URL(request.url);
    semhash ??= await SemHash.open({ store: null });
    if (pathname === "/health") return json(200, { ok: true, stored: semhash.size, wasm_memory_bytes: memoryBytes() });
    if (pathname !== "/dedup") return reject(404, `no route ${pathname}: POST /dedup`);
    if (request.method !== "POST") return reject(405, "use POST");
    const { docs, status, error } = await documentsOf(request);
    if (error) return reject(status, error);
    const results = [];
    for (const doc of docs) {
      const matches = semhash.query(doc.text);
      results.push({ id: String(doc.id), duplicate: matches.length > 0, matches });
      if (!semhash.has(String(doc.id))) await semhash.add([doc]);
    }
    return json(200, { results, stored: semhash.size });
  },
};
