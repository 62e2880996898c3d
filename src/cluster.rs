//! Stage 5: clusters. Accepted pairs join documents; each cluster keeps one
//! representative and says how every other member relates to it.
//!
//! Union-find gives the clusters. The representative is the member that came
//! first in the input (what "keep the first copy" means to most users). Each
//! other member points to a `parent` along a spanning tree grown from the
//! representative over the accepted pairs, strongest pair first, and carries
//! that pair's relation and score, so a chain like "B contains A, A is an
//! exact copy of C" reads as it was found.

use crate::decide::Relation;
use std::collections::VecDeque;

/// An accepted pair: `a` relates to `b` by `relation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    pub a: u32,
    pub b: u32,
    pub relation: Relation,
    pub score: f32,
}

/// Where one document landed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Clusters are numbered in order of their representatives.
    pub cluster: u32,
    pub representative: u32,
    /// The member this one was linked to; `None` for the representative.
    pub parent: Option<u32>,
    /// Relation of this document to its parent (`None` for the representative).
    pub relation: Relation,
    pub score: f32,
}

/// Disjoint sets with path halving and union by size.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    pub fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect(), size: vec![1; n] }
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

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
    let mut uf = UnionFind::new(n);
    for l in links {
        uf.union(l.a, l.b);
    }
    // Adjacency, strongest links first, so the tree prefers them.
    let mut adjacency: Vec<Vec<(u32, Relation, f32)>> = vec![Vec::new(); n];
    for l in links {
        adjacency[l.a as usize].push((l.b, l.relation, l.score));
        adjacency[l.b as usize].push((l.a, l.relation.reversed(), l.score));
    }
    for edges in &mut adjacency {
        edges.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)));
    }

    let none = Placement { cluster: 0, representative: 0, parent: None, relation: Relation::None, score: 0.0 };
    let mut placed = vec![None::<Placement>; n];
    let mut next_cluster = 0;
    let mut queue = VecDeque::new();
    for start in 0..n as u32 {
        if placed[start as usize].is_some() {
            continue;
        }
        // The first unplaced document in input order is its cluster's earliest member.
        let cluster = next_cluster;
        next_cluster += 1;
        placed[start as usize] = Some(Placement { cluster, representative: start, ..none });
        queue.push_back(start);
        while let Some(u) = queue.pop_front() {
            for &(v, relation_uv, score) in &adjacency[u as usize] {
                if placed[v as usize].is_none() {
                    placed[v as usize] = Some(Placement {
                        cluster,
                        representative: start,
                        parent: Some(u),
                        relation: relation_uv.reversed(),
                        score,
                    });
                    queue.push_back(v);
                }
            }
        }
    }
    placed.into_iter().map(|p| p.expect("every document placed")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_point_to_the_first_document_with_their_relation() {
        // 2 is contained in 0; 1 is an exact copy of 2; 3 stands alone.
        let links = [
            Link { a: 2, b: 0, relation: Relation::ContainedIn, score: 0.9 },
            Link { a: 1, b: 2, relation: Relation::Exact, score: 1.0 },
        ];
        let p = cluster(4, &links);
        assert_eq!(p[0].representative, 0);
        assert_eq!(p[0].relation, Relation::None);
        assert_eq!((p[2].parent, p[2].relation), (Some(0), Relation::ContainedIn));
        assert_eq!((p[1].parent, p[1].relation), (Some(2), Relation::Exact));
        assert!(p[..3].iter().all(|x| x.cluster == 0));
        assert_eq!((p[3].cluster, p[3].representative, p[3].parent), (1, 3, None));
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
