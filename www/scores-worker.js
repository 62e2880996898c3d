// Scores pairs for the histogram with the lite build (no encoder: fast), so
// the encoder's worker stays free for the pair inspector. Each pair gets the
// signal the lexical rule thresholds: char 5-gram similarity when both texts
// are short, weighted token similarity otherwise. The documents are indexed
// first, so the weights use the run's corpus statistics as `dedup` did.
// Message in: {docs, pairs: [[i, j]]}; out: progress {done, total}, then
// {config, similarity, short} (the default configuration: its thresholds are
// the boundaries drawn), or {error}.

// Imported dynamically so that `onmessage` is set before the wasm loads (a
// message that arrives during a static import's await would be lost).
const library = import("/pkg/index.browser.js");

self.onmessage = async ({ data: { docs, pairs } }) => {
  try {
    const { SemHash, defaultConfig } = await library;
    const config = defaultConfig();
    const semhash = await SemHash.open({ store: null });
    await semhash.add(docs);
    const similarity = new Float64Array(pairs.length);
    const short = new Uint8Array(pairs.length);
    pairs.forEach(([i, j], k) => {
      const { signals } = semhash.compare(docs[i].text, docs[j].text);
      short[k] = Math.max(...signals.chars) <= config.decide.short_max_chars ? 1 : 0;
      similarity[k] = short[k] ? signals.char_sim : signals.weighted_sim;
      if (k % 250 === 249) self.postMessage({ progress: { done: k + 1, total: pairs.length } });
    });
    semhash.close();
    self.postMessage({ config, similarity, short });
  } catch (e) {
    self.postMessage({ error: e.message });
  }
};
