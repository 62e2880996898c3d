// Turns what the user gives (pasted text, .txt / .jsonl / .csv files) into
// documents [{id, text}] with unique string ids.

/** Pasted text and .txt files: documents are separated by a blank line. */
export function splitParagraphs(text) {
  return text
    .split(/\r?\n[ \t]*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

// FNV-1a over UTF-16 units: a short, stable id for a text without one, so
// the same text gets the same id on the next run (and the store replaces it).
function textHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Documents with ids: given ids kept, the others named by their text's hash. */
export function withIds(records) {
  const seen = new Set();
  return records.map(({ id, text }) => {
    let name = id === undefined || id === null || id === "" ? `t${textHash(text)}` : String(id);
    // Generated ids of repeated texts get a counter; repeated given ids are an error of the input.
    if (seen.has(name) && (id === undefined || id === null || id === "")) {
      let n = 2;
      while (seen.has(`${name}-${n}`)) n++;
      name = `${name}-${n}`;
    }
    if (seen.has(name)) throw new Error(`the id "${name}" is used twice`);
    seen.add(name);
    return { id: name, text };
  });
}

function parseJsonl(content, fileName) {
  const records = [];
  content.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let value;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new Error(`${fileName}, line ${i + 1}: not JSON (${e.message})`);
    }
    if (typeof value?.text !== "string" || !value.text.trim()) throw new Error(`${fileName}, line ${i + 1}: no "text" string`);
    records.push({ id: value.id, text: value.text });
  });
  return records;
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsvRows(content) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (quoted) {
      if (c === '"' && content[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && content[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim()));
}

function parseCsv(content, fileName) {
  const [header, ...rows] = parseCsvRows(content.replace(/^\uFEFF/, ""));
  const names = (header ?? []).map((h) => h.trim().toLowerCase());
  const textColumn = names.indexOf("text");
  if (textColumn < 0) throw new Error(`${fileName}: the header has no "text" column`);
  const idColumn = names.indexOf("id");
  return rows
    .filter((r) => r[textColumn]?.trim())
    .map((r) => ({ id: idColumn >= 0 ? r[idColumn] : undefined, text: r[textColumn] }));
}

/** Records [{id?, text}] of one file, by its extension. */
export function parseFile(fileName, content) {
  const extension = fileName.toLowerCase().split(".").pop();
  if (extension === "jsonl" || extension === "ndjson") return parseJsonl(content, fileName);
  if (extension === "csv") return parseCsv(content, fileName);
  return splitParagraphs(content).map((text) => ({ text }));
}
