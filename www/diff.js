// Word-level diff of two texts for the pair inspector: which words of each
// text the other shares (in order: a longest common subsequence) and which
// are its own. Words compare after case folding and without punctuation, as
// the de-duplicator sees them; the original spelling is what is shown.

const WORD = /\S+/g;

function words(text) {
  const list = [];
  for (const m of text.matchAll(WORD)) {
    list.push({ start: m.index, end: m.index + m[0].length, key: m[0].normalize("NFKC").toLowerCase().replace(/[\p{P}\p{S}]/gu, "") });
  }
  return list;
}

// Beyond this many cells the LCS table would be slow: fall back to "does the
// other text hold this word at all".
const MAX_CELLS = 4_000_000;

/** For each word of a and of b, whether the other text shares it. */
function sharedFlags(a, b) {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    const inA = new Set(a.map((w) => w.key));
    const inB = new Set(b.map((w) => w.key));
    return [a.map((w) => inB.has(w.key)), b.map((w) => inA.has(w.key))];
  }
  // Suffix LCS lengths, one row of m + 1 per word of a.
  const table = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * (m + 1) + j] =
        a[i].key === b[j].key ? table[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(table[(i + 1) * (m + 1) + j], table[i * (m + 1) + j + 1]);
    }
  }
  const flagsA = new Array(n).fill(false);
  const flagsB = new Array(m).fill(false);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i].key === b[j].key) {
      flagsA[i++] = true;
      flagsB[j++] = true;
    } else if (table[(i + 1) * (m + 1) + j] >= table[i * (m + 1) + j + 1]) i++;
    else j++;
  }
  return [flagsA, flagsB];
}

/** Runs of one text: [{text, shared}] where whitespace joins a run to its neighbours. */
function runs(text, list, flags) {
  const out = [];
  let cursor = 0;
  list.forEach((w, k) => {
    const last = out[out.length - 1];
    const gap = text.slice(cursor, w.start);
    const piece = text.slice(w.start, w.end);
    if (last && last.shared === flags[k]) last.text += gap + piece;
    else {
      if (gap) out.push({ text: gap, shared: null });
      out.push({ text: piece, shared: flags[k] });
    }
    cursor = w.end;
  });
  if (cursor < text.length) out.push({ text: text.slice(cursor), shared: null });
  return out;
}

/** Both texts as runs of shared and own words: {left, right, sharedWords}. */
export function wordDiff(leftText, rightText) {
  const a = words(leftText);
  const b = words(rightText);
  const [flagsA, flagsB] = sharedFlags(a, b);
  return { left: runs(leftText, a, flagsA), right: runs(rightText, b, flagsB), sharedWords: flagsA.filter(Boolean).length };
}
