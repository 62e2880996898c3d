// Export of a run's clusters: one line (row) per document, the fields of the
// `semhash dedup` output (id, cluster, representative, relation, score, parent).

const FIELDS = ["id", "cluster", "representative", "relation", "score", "parent"];

export const toJsonl = (docs) => docs.map((d) => JSON.stringify(Object.fromEntries(FIELDS.filter((f) => d[f] !== undefined).map((f) => [f, d[f]])))).join("\n") + "\n";

// RFC 4180: fields holding a comma, a quote or a line break are quoted.
const csvField = (value) => {
  const text = value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export const toCsv = (docs) => [FIELDS.join(","), ...docs.map((d) => FIELDS.map((f) => csvField(d[f])).join(","))].join("\r\n") + "\r\n";

/** Offers `content` as a file download. */
export function download(fileName, content, type) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = Object.assign(document.createElement("a"), { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
