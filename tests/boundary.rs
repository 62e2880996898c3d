//! The learned boundary as shipped (`models/boundary.json`): it loads, it
//! decides corrupted copies and look-alikes the way it was trained to, its
//! file is refused when it is of another version or feature set, and
//! `semhash train-boundary` makes a loadable model from a small corpus; and
//! the pipeline asks a judge about its uncertain verdicts, within the budget.

use semhash::decide::{DeciderWrapper, LearnedBoundary, Relation};
use semhash::{Config, Deduper};

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models/boundary.json");
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.jsonl");

fn shipped() -> LearnedBoundary {
    LearnedBoundary::from_json(&std::fs::read_to_string(MODEL).unwrap()).expect("the shipped model loads")
}

fn learned() -> Deduper {
    Deduper::new(Config { decide: DeciderWrapper::Learned(Box::new(shipped())), ..Config::default() }).unwrap()
}

const QUOTE: &str = "Quantity is no substitute for quality, but it is the only one we have got.";
const OTHER: &str = "A language that does not affect the way you think about programming is not worth knowing.";
const ARTICLE: &str = "The city council approved the new budget on Tuesday after a long debate. \
    Funding for public libraries rises by ten percent, and two new bus lines will open next spring. \
    Critics said the plan leaves too little for road repairs. The mayor called it a fair compromise. \
    Residents can comment on the plan at a public meeting next month. \
    The budget takes effect in January and runs for two years.";
const NEIGHBOUR: &str = "The school board postponed its vote on the new calendar until next week. \
    Parents asked for a longer winter break, and teachers want two more training days. \
    The superintendent said a compromise is close. A survey of families will be published on Friday. \
    The board meets again on Thursday evening in the library.";
const NAV: &str = "Home | News | Sport | Weather | Contact us\nWe use cookies to improve your experience. Accept all\n";
const FOOTER: &str = "\nCopyright 2024 Daily Example. All rights reserved. Privacy policy | Terms of use";

#[test]
fn the_shipped_model_decides_corrupted_copies_and_lookalikes() {
    let deduper = learned();
    let typo = QUOTE.replace("quality", "qaulity").replace("substitute", "substitue");
    let wrapped = format!("{NAV}{ARTICLE}{FOOTER}");
    let excerpt = "Funding for public libraries rises by ten percent, and two new bus lines will open next spring. \
        Critics said the plan leaves too little for road repairs. The mayor called it a fair compromise.";
    let pairs =
        [(QUOTE, typo.as_str()), (ARTICLE, wrapped.as_str()), (excerpt, ARTICLE), (QUOTE, OTHER), (ARTICLE, NEIGHBOUR)];
    let verdicts = deduper.compare(&pairs).unwrap();
    let relation = |i: usize| verdicts[i].0.relation;
    assert!(relation(0).is_duplicate(), "typos: {:?}", verdicts[0]);
    assert!(relation(1).is_duplicate(), "template wrapping: {:?}", verdicts[1]);
    assert_eq!(relation(2), Relation::ContainedIn, "excerpt: {:?}", verdicts[2]);
    assert_eq!(relation(3), Relation::None, "different quotes: {:?}", verdicts[3]);
    assert_eq!(relation(4), Relation::None, "neighbouring articles: {:?}", verdicts[4]);
    for (v, _) in &verdicts {
        let c = v.confidence.expect("a learned verdict carries its confidence");
        assert!((0.0..=1.0).contains(&c.probability) && (0.0..=1.0).contains(&c.uncertainty), "{c:?}");
        assert_eq!(v.score, c.probability);
    }
}

/// Headings that name other versions part a pair under the learned model
/// too, and surely, so that no judge is asked to merge it: the model alone
/// would call this pair a duplicate.
#[test]
fn headings_that_name_other_versions_part_a_pair_surely() {
    let body = "\nThe Debian reference manual for the language: syntax, semantics, the standard library and the \
                annexes, as published by the standards body, in HTML and plain text, for reading offline.";
    let (old, new) = (format!("Ada Reference Manual 2005{body}"), format!("Ada Reference Manual 2012{body}"));
    let deduper = learned();
    let (verdict, signals) = &deduper.compare(&[(&old, &new)]).unwrap()[0];
    assert!(signals.headings_differ && !verdict.relation.is_duplicate(), "{verdict:?}");
    let c = verdict.confidence.expect("a learned verdict");
    assert_eq!((c.probability, c.uncertainty, verdict.score), (0.0, 0.0, 0.0));
    let model = DeciderWrapper::Learned(Box::new(shipped()));
    let unparted = semhash::decide::PairSignals { headings_differ: false, ..*signals };
    assert!(semhash::decide::Decider::decide(&model, &unparted).relation.is_duplicate(), "{signals:?}");
}

#[test]
fn verdicts_do_not_depend_on_the_order_of_the_pair() {
    let deduper = learned();
    let wrapped = format!("{NAV}{ARTICLE}{FOOTER}");
    let v = deduper.compare(&[(ARTICLE, wrapped.as_str()), (wrapped.as_str(), ARTICLE)]).unwrap();
    assert_eq!(v[0].0.score, v[1].0.score);
    assert_eq!(v[0].0.relation, v[1].0.relation.reversed());
}

#[test]
fn model_files_of_another_version_or_feature_set_are_refused() {
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(MODEL).unwrap()).unwrap();
    let refused = |v: &serde_json::Value| LearnedBoundary::from_json(&v.to_string()).unwrap_err().to_string();

    let mut other = json.clone();
    other["version"] = 2.into();
    assert!(refused(&other).contains("version"), "{}", refused(&other));

    let mut features = json.clone();
    features["features"].as_array_mut().unwrap().pop();
    assert!(refused(&features).contains("features"), "{}", refused(&features));

    let mut sph = json.clone();
    sph["format"] = "semhash-sph".into();
    assert!(refused(&sph).contains("not a semhash-boundary file"), "{}", refused(&sph));

    json["members"] = serde_json::json!([]);
    assert!(refused(&json).contains("members"), "{}", refused(&json));
}

#[test]
fn a_config_carries_the_learned_decider() {
    let config = Config { decide: DeciderWrapper::Learned(Box::new(shipped())), ..Config::default() };
    let json = serde_json::to_string(&config).unwrap();
    assert!(json.contains(r#""type":"learned""#));
    assert_eq!(Config::from_json(&json).unwrap(), config);
    let mut bad: serde_json::Value = serde_json::from_str(&json).unwrap();
    bad["decide"]["version"] = 0.into();
    assert!(Config::from_json(&bad.to_string()).is_err(), "a config is checked like a model file");
}

/// A judge that says one thing of every pair, sure of it (the judges
/// themselves are tested in tests/judge.rs; this checks the pipeline's use).
struct Says(bool);

impl semhash::judge::Judge for Says {
    fn name(&self) -> &'static str {
        "says"
    }

    fn judge(&self, pairs: &[semhash::judge::Pair<'_>]) -> Vec<semhash::Result<semhash::judge::Judgement>> {
        pairs.iter().map(|_| Ok(semhash::judge::Judgement::new(self.0, 1.0))).collect()
    }
}

fn judged(says: bool, fraction: f64) -> Deduper {
    let budget = semhash::judge::Budget { fraction, max_calls: None };
    learned().with_judge(semhash::judge::Stage { judge: Box::new(Says(says)), budget, band: 0.0 }).unwrap()
}

#[test]
fn dedup_asks_the_judge_within_its_budget_and_follows_it() {
    let docs: Vec<semhash::Document> = std::fs::read_to_string(SAMPLE)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            semhash::Document { id: v["id"].to_string(), text: v["text"].as_str().unwrap().to_owned() }
        })
        .collect();
    let silent = &semhash::util::Silent;
    let alone = learned().dedup(&docs, silent).unwrap().stats;
    assert!(alone.judge.is_none());

    let yes = judged(true, 1.0).dedup(&docs, silent).unwrap().stats;
    let j = yes.judge.as_ref().expect("judge stats");
    assert_eq!(j.calls as u64, yes.candidate_pairs, "band 0, budget 1: every candidate pair is asked");
    assert_eq!(yes.accepted_pairs, yes.candidate_pairs, "a sure judge decides the pairs: {j:?}");
    assert!(j.changed > 0 && yes.clusters < alone.clusters);

    let capped = judged(true, 0.01).dedup(&docs, silent).unwrap().stats;
    assert_eq!(capped.judge.unwrap().calls as u64, capped.candidate_pairs / 100);

    let no = judged(false, 1.0).dedup(&docs, silent).unwrap().stats;
    assert!(no.accepted_pairs < alone.accepted_pairs, "a sure 'no' unlinks pairs the model was unsure of");

    let rules = Deduper::new(Config::default()).unwrap();
    let stage = semhash::judge::Stage { judge: Box::new(Says(true)), budget: Default::default(), band: 0.5 };
    assert!(rules.with_judge(stage).is_err(), "the rules state no uncertainty to judge by");
}
