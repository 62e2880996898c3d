// What a correct run on the labelled sample must give, read from the labels
// alone: used by make_sample.mjs (to check the sample it writes) and by the
// page's test (to check what the page shows). Both pass the de-duplicator's
// outcome ({docs, snippets}) and get back a list of problems, empty when right.

/** Label types whose documents must end up together, one cluster per label cluster. */
export const MERGED_TYPES = ["boilerplate", "hot", "short", "contain", "paraphrase"];

/** Relations a duplicate of these types must carry (the others may be exact or near). */
const RELATIONS = { contain: ["contained_in", "contains"], paraphrase: ["paraphrase"] };

/** Per label type: how many clusters of duplicates, and which ids make each. */
export function expectedClusters(rows) {
  const groups = new Map();
  for (const row of rows) {
    if (!MERGED_TYPES.includes(row.type)) continue;
    const key = `${row.type}\u0000${row.cluster}`;
    if (!groups.has(key)) groups.set(key, { type: row.type, ids: [] });
    groups.get(key).ids.push(String(row.id));
  }
  const perType = Object.fromEntries(MERGED_TYPES.map((t) => [t, 0]));
  for (const g of groups.values()) perType[g.type] += 1;
  return { groups: [...groups.values()], perType };
}

/** Viral snippets the sample holds: each pasted into `min_docs` hosts or more. */
export function expectedSnippets(rows) {
  const hosts = new Map();
  for (const row of rows.filter((r) => r.type === "viral")) {
    hosts.set(row.snippet, [...(hosts.get(row.snippet) ?? []), String(row.id)]);
  }
  return [...hosts.values()];
}

/** Problems of an outcome against the labels (an empty list: it matches). */
export function checkOutcome(rows, outcome) {
  const problems = [];
  const clusterOf = new Map(outcome.docs.map((d) => [String(d.id), d.cluster]));
  const relationOf = new Map(outcome.docs.map((d) => [String(d.id), d.relation]));
  const size = new Map();
  for (const d of outcome.docs) size.set(d.cluster, (size.get(d.cluster) ?? 0) + 1);

  for (const { type, ids } of expectedClusters(rows).groups) {
    const found = new Set(ids.map((id) => clusterOf.get(id)));
    if (found.size !== 1) problems.push(`${type} ${ids.join(",")}: split over clusters ${[...found].join(",")}`);
    else if (size.get([...found][0]) !== ids.length) problems.push(`${type} ${ids.join(",")}: cluster holds other documents`);
    const relations = ids.map((id) => relationOf.get(id)).filter((r) => r !== "none");
    if (RELATIONS[type] && !relations.every((r) => RELATIONS[type].includes(r))) {
      problems.push(`${type} ${ids.join(",")}: relations ${relations.join(",")}, expected ${RELATIONS[type].join(" or ")}`);
    }
  }
  // Viral hosts and singletons share nothing that makes them duplicates.
  for (const row of rows.filter((r) => r.type === "viral" || r.type === "singleton")) {
    if (size.get(clusterOf.get(String(row.id))) !== 1) problems.push(`${row.type} ${row.id}: merged with another document`);
  }
  for (const hosts of expectedSnippets(rows)) {
    const reported = outcome.snippets.some((s) => hosts.every((id) => s.docs.map(String).includes(id)));
    if (!reported) problems.push(`snippet of ${hosts.join(",")}: not reported`);
  }
  return problems;
}
