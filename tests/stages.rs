//! The stage functions run by a toy engine over shuffled partitions give
//! exactly what the batch gives: the check behind a Spark job's identical
//! output, without Java. The engine does what Spark would: map each
//! partition (in a shuffled order, items shuffled within it), then group and
//! aggregate with hash maps, so nothing may depend on the order it sees.

use semhash::cluster::{Link, Placement};
use semhash::decide::augment::Rng;
use semhash::decide::Relation;
use semhash::stages::{number_clusters, Side, Stages};
use semhash::util::Silent;
use semhash::{Config, Deduper, Document};
use std::collections::{BTreeSet, HashMap, HashSet};

/// `items` dealt into `n` partitions, the partitions and each one's items shuffled.
fn partitions<T: Copy>(items: &[T], n: usize, rng: &mut Rng) -> Vec<Vec<T>> {
    let mut parts: Vec<Vec<T>> = vec![Vec::new(); n];
    for &item in items {
        parts[rng.below(n)].push(item);
    }
    for part in &mut parts {
        for i in (1..part.len()).rev() {
            part.swap(i, rng.below(i + 1));
        }
    }
    parts.sort_by_key(|_| rng.next_u64());
    parts
}

/// `f` over every item, partition by partition, in the order the engine deals them.
fn map<T: Copy, R>(items: &[T], n: usize, rng: &mut Rng, mut f: impl FnMut(T) -> R) -> Vec<R> {
    partitions(items, n, rng).into_iter().flatten().map(&mut f).collect()
}

/// The whole job through the stage functions; placements by position.
fn staged(deduper: &Deduper, docs: &[Document], n: usize, seed: u64) -> Vec<Placement> {
    let stages = Stages::new(deduper).unwrap();
    let rng = &mut Rng::new(seed);
    let positions: Vec<u32> = (0..docs.len() as u32).collect();

    // Ingest and exact: heads are the lowest position of each text.
    let prepared: HashMap<u32, _> =
        map(&positions, n, rng, |p| (p, stages.prepare(&docs[p as usize].text))).into_iter().collect();
    let mut holders: HashMap<u128, Vec<u32>> = HashMap::new();
    for (key, p) in map(&positions, n, rng, |p| (stages.exact_key(&docs[p as usize].text), p)) {
        holders.entry(key).or_default().push(p);
    }
    let mut head_of: HashMap<u32, u32> = HashMap::new();
    let mut copies: HashMap<u32, u32> = HashMap::new();
    for group in holders.values() {
        let head = *group.iter().min().unwrap();
        for &p in group {
            head_of.insert(p, head);
        }
        copies.insert(head, group.len() as u32 - 1);
    }
    let heads: Vec<u32> = copies.keys().copied().collect();

    // Statistics: df, then content_df with each text's df joined in.
    let shingles: HashMap<u32, Vec<u64>> =
        map(&heads, n, rng, |h| (h, stages.shingles(&prepared[&h]))).into_iter().collect();
    let mut df: HashMap<u64, u32> = HashMap::new();
    shingles.values().flatten().for_each(|&s| *df.entry(s).or_default() += 1);
    let mut content_df: HashMap<u64, u32> = HashMap::new();
    for content in map(&heads, n, rng, |h| stages.content_shingles(&shingles[&h], |s| df[&s])) {
        content.into_iter().for_each(|s| *content_df.entry(s).or_default() += 1);
    }

    // Sign, each text with its own shingles' counts only.
    let docs_count = heads.len() as u64;
    let sigs: HashMap<u32, _> = map(&heads, n, rng, |h| {
        let counts = shingles[&h].iter().map(|&s| (s, df[&s], content_df.get(&s).copied().unwrap_or(0)));
        (h, stages.sign(&prepared[&h], &stages.statistics(docs_count, counts)))
    })
    .into_iter()
    .collect();

    // Candidates: group by key; passage pairs need enough shared keys.
    let mut bands: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
    let mut passages: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
    for (h, band, passage) in map(&heads, n, rng, |h| (h, stages.band_keys(&sigs[&h]), stages.passage_keys(&sigs[&h])))
    {
        band.into_iter().for_each(|k| bands.entry(k).or_default().push((h, copies[&h])));
        passage.into_iter().for_each(|k| passages.entry(k).or_default().push((h, copies[&h])));
    }
    let bucket = |members: &mut Vec<(u32, u32)>| {
        members.sort_unstable();
        members.dedup();
        stages.bucket_pairs(members)
    };
    let mut pairs: BTreeSet<(u32, u32)> = bands.values_mut().flat_map(bucket).collect();
    let mut shared: HashMap<(u32, u32), usize> = HashMap::new();
    passages.values_mut().flat_map(bucket).for_each(|pair| *shared.entry(pair).or_default() += 1);
    pairs.extend(shared.into_iter().filter(|&(_, k)| k >= stages.min_shared_passages()).map(|(pair, _)| pair));

    // Word statistics of the short texts; each pair reads against the counts of its own two texts.
    let short: Vec<u32> = heads.iter().copied().filter(|h| stages.is_short(&sigs[h])).collect();
    let keys: HashMap<u32, _> =
        map(&short, n, rng, |h| (h, stages.word_keys(&stages.reading(&prepared[&h])))).into_iter().collect();
    let mut word_df: HashMap<u64, u32> = HashMap::new();
    let mut fillers: HashSet<(u64, u64)> = HashSet::new();
    for k in keys.values() {
        k.words.iter().for_each(|&w| *word_df.entry(w).or_default() += 1);
        fillers.extend(k.fillers.iter().copied());
    }
    let mut context_fillers: HashMap<u64, u32> = HashMap::new();
    fillers.iter().for_each(|&(c, _)| *context_fillers.entry(c).or_default() += 1);

    let pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
    let mut links: Vec<Link> = map(&pairs, n, rng, |(a, b)| {
        let own = [a, b].into_iter().filter_map(|h| keys.get(&h));
        let words: Vec<(u64, u32)> = own.clone().flat_map(|k| k.words.iter().map(|w| (*w, word_df[w]))).collect();
        let contexts: Vec<(u64, u32)> = own
            .flat_map(|k| k.fillers.iter().map(|(c, _)| (*c, context_fillers[c])))
            .collect::<HashMap<_, _>>()
            .into_iter()
            .collect();
        let stats = stages.word_stats(short.len() as u64, words.into_iter().collect::<HashMap<_, _>>(), contexts);
        let reading = |h: u32| keys.contains_key(&h).then(|| stages.reading(&prepared[&h]));
        let (ra, rb) = (reading(a), reading(b));
        let (sa, sb) = (
            Side { position: a, signature: &sigs[&a], words: ra.as_ref() },
            Side { position: b, signature: &sigs[&b], words: rb.as_ref() },
        );
        stages.verify(&stats, &sa, &sb)
    })
    .into_iter()
    .flatten()
    .collect();
    links.extend(head_of.iter().filter(|(p, h)| p != h).map(|(&p, &h)| Link {
        a: p,
        b: h,
        relation: Relation::Exact,
        score: 1.0,
    }));

    // Connected components, each clustered on its own, then numbered.
    let mut parent: Vec<u32> = positions.clone();
    fn find(parent: &mut [u32], x: u32) -> u32 {
        let mut r = x;
        while parent[r as usize] != r {
            r = parent[r as usize];
        }
        parent[x as usize] = r;
        r
    }
    for l in &links {
        let (ra, rb) = (find(&mut parent, l.a), find(&mut parent, l.b));
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
    let mut members: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut component_links: HashMap<u32, Vec<Link>> = HashMap::new();
    for p in &positions {
        members.entry(find(&mut parent, *p)).or_default().push(*p);
    }
    for l in &links {
        component_links.entry(find(&mut parent, l.a)).or_default().push(*l);
    }
    let roots: Vec<u32> = members.keys().copied().collect();
    let mut placed: Vec<(u32, Placement)> = map(&roots, n, rng, |r| {
        let mut at = members[&r].clone();
        at.sort_unstable();
        stages.cluster_component(&at, component_links.get(&r).map_or(&[][..], Vec::as_slice))
    })
    .into_iter()
    .flatten()
    .collect();
    number_clusters(&mut placed);
    placed.sort_by_key(|&(at, _)| at);
    placed.into_iter().map(|(_, p)| p).collect()
}

/// The sample corpus, or the JSONL file `SEMHASH_STAGES_DATA` names (for
/// checking on a larger corpus: the stress set), with a hot text added.
fn corpus() -> Vec<Document> {
    let path = std::env::var("SEMHASH_STAGES_DATA")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.jsonl").into());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut docs: Vec<Document> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().map_or_else(|| v["id"].to_string(), str::to_owned);
            Document { id, text: v["text"].as_str().unwrap().into() }
        })
        .collect();
    // A hot text: copies and near copies beyond any small bucket cap.
    let hot = "Breaking: the city council votes to close the old harbour bridge for repairs next month.";
    for i in 0..40 {
        let text = match i % 4 {
            0 => hot.to_string(),
            1 => hot.replace("next month", "next month!"),
            2 => hot.to_uppercase(),
            _ => format!("{hot} ({i})"),
        };
        docs.push(Document { id: format!("hot{i}"), text });
    }
    // Long texts told apart only by the versions their headings name, and a
    // generic one that is a duplicate of each: the numbers must travel with
    // a prepared text and in its signature, and the pair kept apart must
    // reach the cluster stage.
    let body = "Qt is a cross-platform C++ application framework. Qt's primary feature is its rich set of widgets \
                that provide standard GUI functionality. The QtCore module contains core non-GUI functionality: \
                the event loop, threads, file and settings access, and the object model the others build on.";
    for v in ["5 ", "6 ", ""] {
        docs.push(Document { id: format!("qt{}", v.trim()), text: format!("Qt {v}core module\n{body}") });
    }
    // A short pair whose verdict depends on the corpus's word statistics.
    for (id, text) in [("pie", "pie chart for react native"), ("a-pie", "a pie chart for react native")] {
        docs.push(Document { id: id.into(), text: text.into() });
    }
    docs
}

fn assert_same_as_batch(config: Config) {
    let deduper = Deduper::new(config).unwrap();
    let docs = corpus();
    let batch = deduper.dedup(&docs, &Silent).unwrap().docs;
    assert!(batch.iter().filter(|r| r.parent.is_some()).count() > 40, "the sample has duplicates to find");
    let position: HashMap<&str, u32> = docs.iter().enumerate().map(|(i, d)| (d.id.as_str(), i as u32)).collect();
    for (n, seed) in [(1, 1), (3, 2), (7, 3), (7, 4)] {
        let staged = staged(&deduper, &docs, n, seed);
        for (r, p) in batch.iter().zip(&staged) {
            let want =
                (r.cluster, position[r.representative.as_str()], r.parent.as_deref().map(|q| position[q]), r.relation);
            assert_eq!((p.cluster, p.representative, p.parent, p.relation), want, "{} in {n} partitions", r.id);
            assert_eq!(p.score.to_bits(), r.score.to_bits(), "{} score in {n} partitions", r.id);
        }
    }
}

#[test]
fn stages_over_shuffled_partitions_give_the_batch_result() {
    assert_same_as_batch(Config::default());
}

#[test]
fn hot_buckets_are_capped_alike() {
    let mut config = Config::default();
    config.index.bucket_cap = 3;
    assert_same_as_batch(config);
}
