//! Stage 5: clusters. Accepted pairs join documents; each cluster keeps one
//! representative and says how every other member relates to it.
//!
//! Clusters do not chain. Union-find over accepted pairs would join A and C
//! because A is near B and B near C, and on real short texts such chains run
//! through templates ("SDK for AWS X", "SDK for AWS Y", ...) into clusters
//! of thousands of unrelated documents. So a document joins a cluster only
//! as a duplicate of its representative: star clustering. Exact copies form
//! a unit first (they are the same text); then, taking units in order of how
//! many documents they would take (their own copies counted twice, so that
//! the most copied text goes first; ties: the first in input order), each
//! unit not yet placed becomes a representative and takes every unplaced unit
//! it has an accepted pair with. A pair between two units that went to
//! different representatives stays a pair, not a merge.
//!
//! A link of relation [`Relation::None`] ([`Link::apart`]) keeps two
//! documents out of one cluster: a unit is not taken into a cluster that
//! holds a unit it is kept apart from. A generic heading ("GCC support
//! library") is a duplicate of each of its variants ("... (64bit)", "...
//! (ppc64)") by the rules; the variants are not duplicates of each other,
//! and without this the star would hold them together.
//!
//! The representative is therefore the member the others duplicate: for a
//! document copied hundreds of times with small edits, the original; for two
//! documents, the first in input order (what "keep the first copy" means to
//! most users).

use crate::decide::{Relation, Verdict};

/// An accepted pair: `a` relates to `b` by `relation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// A document, by input position.
    pub a: u32,
    /// The other document, by input position.
    pub b: u32,
    /// How `a` relates to `b`: a duplicate relation (`Exact` links make
    /// copies one unit before anything else is placed), or `None` for two
    /// documents that must not share a cluster ([`Link::apart`]).
    pub relation: Relation,
    /// The verdict's score. A representative takes its strongest links
    /// first, so each member keeps its strongest relation.
    pub score: f32,
}

impl Link {
    /// `a` and `b` must not share a cluster: their headings name different
    /// things ([`crate::sketch::heading`]).
    pub fn apart(a: u32, b: u32) -> Self {
        Link { a, b, relation: Relation::None, score: 0.0 }
    }

    /// The link a decided pair makes, if any: [`Link::apart`] where `apart`
    /// (their headings name different things, [`PairSignals::headings_differ`](crate::decide::PairSignals::headings_differ)),
    /// else the verdict's where it is a duplicate.
    pub fn decided(a: u32, b: u32, verdict: &Verdict, apart: bool) -> Option<Self> {
        if apart {
            return Some(Link::apart(a, b));
        }
        verdict.relation.is_duplicate().then_some(Link { a, b, relation: verdict.relation, score: verdict.score })
    }
}

/// Where one document landed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Clusters are numbered in order of their representatives.
    pub cluster: u32,
    /// The document the cluster keeps, by input position (this one itself
    /// for a representative).
    pub representative: u32,
    /// The member this one was linked to; `None` for the representative.
    pub parent: Option<u32>,
    /// Relation of this document to its parent (`None` for the representative).
    pub relation: Relation,
    /// Score of the link to the parent: 1 for an exact copy, 0 for the
    /// representative.
    pub score: f32,
}

/// Disjoint sets with path halving and union by size.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` sets of one element each: `0`, `1`, ... `n - 1`.
    pub fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect(), size: vec![1; n] }
    }

    /// The root of the set holding `x`. Each step points a node at its
    /// grandparent (path halving), so paths stay short without recursion.
    ///
    /// Panics when `x` is not below the `n` given to [`UnionFind::new`].
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Joins the sets of `a` and `b`, the smaller under the larger so that
    /// trees stay shallow. Returns `false` when they were one set already.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }
}

/// Clusters `n` documents (numbered in input order) joined by `links`.
pub fn cluster(n: usize, links: &[Link]) -> Vec<Placement> {
    // Exact copies are one unit, headed by its first document.
    let mut copies = UnionFind::new(n);
    let mut head_of_group = vec![u32::MAX; n];
    for l in links.iter().filter(|l| l.relation == Relation::Exact) {
        copies.union(l.a, l.b);
    }
    for i in 0..n as u32 {
        let g = copies.find(i) as usize;
        head_of_group[g] = head_of_group[g].min(i);
    }
    let head: Vec<u32> = (0..n as u32).map(|i| head_of_group[copies.find(i) as usize]).collect();
    let mut size = vec![0u32; n];
    head.iter().for_each(|&h| size[h as usize] += 1);

    // Links between units, strongest first, so a representative takes its
    // closest duplicates first and each member keeps its strongest relation.
    let mut adjacency: Vec<Vec<(u32, Relation, f32)>> = vec![Vec::new(); n];
    let mut apart = Vec::new();
    for l in links.iter().filter(|l| head[l.a as usize] != head[l.b as usize]) {
        let (a, b) = (head[l.a as usize], head[l.b as usize]);
        if l.relation == Relation::None {
            apart.push((a.min(b), a.max(b)));
            continue;
        }
        adjacency[a as usize].push((b, l.relation, l.score));
        adjacency[b as usize].push((a, l.relation.reversed(), l.score));
    }
    // Sorted, for lookups without a hash table (wasm size).
    apart.sort_unstable();
    // One link per pair of units, the strongest.
    let mut seen_from = vec![u32::MAX; n];
    for (u, edges) in adjacency.iter_mut().enumerate() {
        edges.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)));
        edges.retain(|e| std::mem::replace(&mut seen_from[e.0 as usize], u as u32) != u as u32);
    }
    // Units in order of how many documents they would take, their own copies
    // counted twice (for a hot document the most copied text, the original,
    // goes first), then in input order; packed into one key to sort.
    let priority = |u: usize| 2 * size[u] + adjacency[u].iter().map(|&(v, _, _)| size[v as usize]).sum::<u32>();
    let mut order: Vec<u64> = (0..n as u32)
        .filter(|&i| head[i as usize] == i)
        .map(|u| ((u32::MAX - priority(u as usize)) as u64) << 32 | u as u64)
        .collect();
    order.sort_unstable();

    let none = Placement { cluster: 0, representative: 0, parent: None, relation: Relation::None, score: 0.0 };
    let mut placed = vec![None::<Placement>; n];
    let mut members = Vec::new();
    for centre in order.into_iter().map(|key| key as u32) {
        if placed[centre as usize].is_some() {
            continue;
        }
        placed[centre as usize] = Some(Placement { representative: centre, ..none });
        members.clear();
        members.push(centre);
        for &(v, relation_cv, score) in &adjacency[centre as usize] {
            let kept_apart =
                || !apart.is_empty() && members.iter().any(|&m| apart.binary_search(&(m.min(v), m.max(v))).is_ok());
            if placed[v as usize].is_none() && !kept_apart() {
                members.push(v);
                let relation = relation_cv.reversed();
                placed[v as usize] =
                    Some(Placement { representative: centre, parent: Some(centre), relation, score, ..none });
            }
        }
    }
    for i in 0..n {
        let h = head[i] as usize;
        if h != i {
            let unit = placed[h].expect("heads placed");
            placed[i] = Some(Placement { parent: Some(h as u32), relation: Relation::Exact, score: 1.0, ..unit });
        }
    }
    let mut placed: Vec<Placement> = placed.into_iter().map(|p| p.expect("every document placed")).collect();

    // Clusters are numbered in order of their first documents.
    let mut number = vec![u32::MAX; n];
    let mut next = 0;
    for p in &mut placed {
        let r = p.representative as usize;
        if number[r] == u32::MAX {
            number[r] = next;
            next += 1;
        }
        p.cluster = number[r];
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_kept_apart_do_not_share_a_cluster() {
        // 0 is a duplicate of 1, 2 and 3; 1 and 2 are kept apart, and a copy of 2 (4) too.
        let near = |a, b, score| Link { a, b, relation: Relation::Near, score };
        let mut links = vec![near(1, 0, 0.9), near(2, 0, 0.8), near(3, 0, 0.7), Link::apart(1, 2)];
        let p = cluster(5, &links);
        assert_eq!(p.iter().map(|p| p.representative).collect::<Vec<_>>(), [0, 0, 2, 0, 4]);
        links.push(Link { a: 4, b: 2, relation: Relation::Exact, score: 1.0 });
        let p = cluster(5, &links);
        assert_eq!((p[1].representative, p[2].representative, p[4].representative), (0, 2, 2), "{p:?}");
        assert_eq!(p[2].relation, Relation::None, "the one left out represents its own");
    }

    #[test]
    fn members_point_to_the_first_document_with_their_relation() {
        // 1 is contained in 0; 3 stands alone.
        let links = [Link { a: 1, b: 0, relation: Relation::ContainedIn, score: 0.9 }];
        let p = cluster(4, &links);
        assert_eq!((p[0].representative, p[0].parent, p[0].relation), (0, None, Relation::None));
        assert_eq!((p[1].representative, p[1].parent, p[1].relation), (0, Some(0), Relation::ContainedIn));
        assert_eq!((p[2].cluster, p[3].cluster, p[3].representative, p[3].parent), (1, 2, 3, None));
        // With two copies, the contained text is the most copied: it represents, and 0 contains it.
        let links = [links[0], Link { a: 2, b: 1, relation: Relation::Exact, score: 1.0 }];
        let p = cluster(4, &links);
        assert_eq!((p[1].representative, p[1].parent), (1, None));
        assert_eq!((p[0].parent, p[0].relation), (Some(1), Relation::Contains));
        assert_eq!((p[2].parent, p[2].relation), (Some(1), Relation::Exact));
        assert!(p[..3].iter().all(|x| x.cluster == 0));
        assert_eq!((p[3].cluster, p[3].representative, p[3].parent), (1, 3, None));
    }

    #[test]
    fn a_chain_is_not_a_cluster() {
        // 0 - 1 - 2 - 3: each near the next, none near the one after.
        let near = |a, b| Link { a, b, relation: Relation::Near, score: 0.8 };
        let p = cluster(4, &[near(0, 1), near(1, 2), near(2, 3)]);
        for (i, q) in p.iter().enumerate() {
            if let Some(parent) = q.parent {
                assert_eq!(parent, q.representative, "document {i} is a duplicate of its representative");
            }
        }
        assert_ne!(p[0].cluster, p[3].cluster, "the ends of a chain are apart");
    }

    #[test]
    fn the_most_copied_document_represents_its_edits() {
        // 0 and 1 are edits of 2, which has exact copies 3 and 4.
        let near = |a, b| Link { a, b, relation: Relation::Near, score: 0.9 };
        let exact = |a, b| Link { a, b, relation: Relation::Exact, score: 1.0 };
        let p = cluster(5, &[near(0, 2), near(1, 2), near(0, 1), exact(3, 2), exact(4, 2)]);
        assert!(p.iter().all(|q| q.cluster == 0 && q.representative == 2), "{p:?}");
        assert_eq!((p[3].parent, p[3].relation), (Some(2), Relation::Exact));
        assert_eq!((p[0].parent, p[0].relation), (Some(2), Relation::Near));
    }

    #[test]
    fn exact_copies_follow_their_text() {
        // 1 is a copy of 0; 0 and 3 are near 2, which takes both; 1 follows 0.
        let link = |a, b, relation, score| Link { a, b, relation, score };
        let p = cluster(
            4,
            &[
                link(1, 0, Relation::Exact, 1.0),
                link(0, 2, Relation::Near, 0.7),
                link(2, 3, Relation::Near, 0.9),
                link(3, 2, Relation::Near, 0.9),
            ],
        );
        assert_eq!(p[0].cluster, p[1].cluster);
        assert_eq!((p[1].parent, p[1].relation), (Some(0), Relation::Exact));
    }

    #[test]
    fn union_find_merges_transitively() {
        let mut uf = UnionFind::new(5);
        uf.union(0, 1);
        uf.union(3, 4);
        uf.union(1, 4);
        assert_eq!(uf.find(0), uf.find(3));
        assert_ne!(uf.find(0), uf.find(2));
    }
}
