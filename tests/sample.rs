//! The committed sample corpus holds all five kinds of duplicate; each must be
//! found, and nothing else merged.

use semhash::decide::Relation;
use semhash::eval::{cluster_metrics, snippets_found};
use semhash::pipeline::Outcome;
use semhash::util::Silent;
use semhash::{Config, Deduper, Document};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

struct Sample {
    docs: Vec<Document>,
    rows: Vec<Value>,
}

fn sample() -> Sample {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.jsonl")).unwrap();
    let rows: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let docs = rows
        .iter()
        .map(|r| Document { id: r["id"].as_str().unwrap().into(), text: r["text"].as_str().unwrap().into() })
        .collect();
    Sample { docs, rows }
}

fn run(s: &Sample) -> Outcome {
    Deduper::new(Config::default()).unwrap().dedup(&s.docs, &Silent).unwrap()
}

#[test]
fn every_duplicate_type_is_found_and_nothing_else_merges() {
    let s = sample();
    let outcome = run(&s);
    let truth: Vec<(&str, &str)> =
        s.rows.iter().map(|r| (r["cluster"].as_str().unwrap(), r["type"].as_str().unwrap())).collect();
    let predicted: Vec<u32> = outcome.docs.iter().map(|d| d.cluster).collect();
    let metrics = cluster_metrics(&truth, &predicted);
    for kind in ["boilerplate", "hot", "short", "contain"] {
        let m = &metrics[kind];
        assert!(m.true_pairs > 0, "{kind}: the sample has pairs of this type");
        assert_eq!(m.recall, Some(1.0), "{kind}: {m:?}");
    }
    for (kind, m) in &metrics {
        assert_eq!(m.false_pairs, 0, "{kind}: {m:?}");
    }
    assert_eq!(metrics["viral"].wrongly_merged_docs, 0, "no viral host is merged");
}

#[test]
fn every_input_id_appears_once_in_input_order() {
    let s = sample();
    let outcome = run(&s);
    let ids: Vec<&str> = outcome.docs.iter().map(|d| d.id.as_str()).collect();
    let want: Vec<&str> = s.docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, want);
}

#[test]
fn viral_snippets_are_reported_with_their_hosts() {
    let s = sample();
    let outcome = run(&s);
    let position: HashMap<&str, usize> = s.docs.iter().enumerate().map(|(i, d)| (d.id.as_str(), i)).collect();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in s.rows.iter().enumerate() {
        if let Some(k) = r.get("snippet") {
            groups.entry(k.to_string()).or_default().push(i);
        }
    }
    assert_eq!(groups.len(), 3);
    let reported: Vec<Vec<usize>> =
        outcome.snippets.iter().map(|sn| sn.docs.iter().map(|id| position[id.as_str()]).collect()).collect();
    assert_eq!(snippets_found(&groups, &reported), 3, "{:#?}", outcome.snippets);
    // The reported text is the quote as the user wrote it, in the host's own spelling.
    let host = &s.docs[groups.values().next().unwrap()[0]].text;
    assert!(outcome.snippets.iter().any(|sn| host.contains(&sn.text)), "snippet text comes from the original");
}

fn position(s: &Sample, id: &str) -> usize {
    s.docs.iter().position(|d| d.id == id).unwrap()
}

#[test]
fn relations_say_how_members_relate() {
    let s = sample();
    let outcome = run(&s);
    let by_id: HashMap<&str, &semhash::pipeline::DocResult> = outcome.docs.iter().map(|d| (d.id.as_str(), d)).collect();
    for (r, doc) in s.rows.iter().zip(&outcome.docs) {
        let variant = r["variant"].as_str().unwrap();
        match (r["type"].as_str().unwrap(), variant) {
            // A child excerpt is contained in its parent chapter, whichever came first.
            ("contain", v) if v.starts_with("child") => {
                let parent = doc.parent.as_deref().map(|p| by_id[p]);
                let rel = match parent {
                    Some(_) => doc.relation,
                    None => outcome
                        .docs
                        .iter()
                        .find(|d| d.parent.as_deref() == Some(doc.id.as_str()))
                        .unwrap()
                        .relation
                        .reversed(),
                };
                assert_eq!(rel, Relation::ContainedIn, "{}", doc.id);
            }
            // A later copy of the same text is an exact duplicate.
            ("hot", "exact")
                if s.docs
                    .iter()
                    .take_while(|d| d.id != doc.id)
                    .any(|d| d.text == s.docs[position(&s, &doc.id)].text) =>
            {
                assert_eq!(doc.relation, Relation::Exact, "{}", doc.id)
            }
            ("singleton" | "viral", _) => assert_eq!((doc.relation, doc.parent.as_deref()), (Relation::None, None)),
            _ => {}
        }
        // Every member is a duplicate of its representative, or an exact
        // copy of such a duplicate: clusters do not chain.
        let rep = by_id[doc.representative.as_str()];
        assert_eq!((rep.cluster, rep.parent.as_deref()), (doc.cluster, None), "{}", doc.id);
        if let Some(parent) = doc.parent.as_deref() {
            let direct = parent == doc.representative;
            let copy = doc.relation == Relation::Exact && by_id[parent].parent.as_deref() == Some(rep.id.as_str());
            assert!(direct || copy, "{} reaches its representative {} through {parent}", doc.id, rep.id);
        }
    }
}
