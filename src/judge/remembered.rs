//! A judge that keeps its verdicts as checkpoints, so a resumed run asks it
//! only about the pairs no earlier run had an answer for: judge calls are the
//! slowest and, for a paid endpoint, the only costly step of a run.

use super::{Judge, Judgement, Pair};
use crate::util::checkpoint::Checkpoints;
use crate::Result;

/// Pairs sent to the inner judge at a time; each group's verdicts are saved
/// before the next is asked, so a killed run loses at most one group.
const GROUP: usize = 32;

/// See the module docs.
pub struct Remembered<'a> {
    inner: &'a dyn Judge,
    checkpoints: &'a dyn Checkpoints,
    /// Names the judge and its settings: another judge's verdicts are never reused.
    identity: String,
}

impl<'a> Remembered<'a> {
    /// `inner`'s verdicts kept in `checkpoints` under keys made of
    /// `identity` (the judge's configuration) and the pair.
    pub fn new(inner: &'a dyn Judge, checkpoints: &'a dyn Checkpoints, identity: &str) -> Self {
        Remembered { inner, checkpoints, identity: format!("{} {identity}", inner.name()) }
    }

    fn key(&self, pair: &Pair) -> String {
        let bytes = [self.identity.as_bytes(), pair.a.as_bytes(), pair.b.as_bytes(), &pair.p.to_le_bytes()].join(&0u8);
        format!("judged-{:032x}", crate::util::hash::hash128(&bytes))
    }
}

impl Judge for Remembered<'_> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>> {
        let keys: Vec<String> = pairs.iter().map(|p| self.key(p)).collect();
        // A checkpoint that does not parse is asked again, never trusted.
        let mut out: Vec<Option<Result<Judgement>>> = keys
            .iter()
            .map(|k| self.checkpoints.load(k).and_then(|b| serde_json::from_slice(&b).ok()).map(Ok))
            .collect();
        let missing: Vec<usize> = (0..pairs.len()).filter(|&i| out[i].is_none()).collect();
        for group in missing.chunks(GROUP) {
            let asked: Vec<Pair<'_>> = group.iter().map(|&i| pairs[i]).collect();
            let mut answers = self.inner.judge(&asked).into_iter();
            for &i in group {
                let answer = answers
                    .next()
                    .unwrap_or_else(|| Err(crate::Error::Input(format!("{} gave no verdict", self.inner.name()))));
                // A verdict that cannot be saved is still used: this run's
                // result stays right, and only a resumed run would ask again.
                if let Ok(j) = &answer {
                    let _ = self.checkpoints.save(&keys[i], &serde_json::to_vec(j).expect("a judgement serialises"));
                }
                out[i] = Some(answer);
            }
        }
        out.into_iter().map(|o| o.expect("every pair answered")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// Duplicates are texts of the same length; counts the pairs it is asked.
    #[derive(Default)]
    struct Counting(AtomicUsize);
    impl Judge for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>> {
            self.0.fetch_add(pairs.len(), Ordering::SeqCst);
            pairs.iter().map(|p| Ok(Judgement::new(p.a.len() == p.b.len(), 0.9))).collect()
        }
    }

    #[derive(Default)]
    struct Memory(Mutex<HashMap<String, Vec<u8>>>);
    impl Checkpoints for Memory {
        fn load(&self, key: &str) -> Option<Vec<u8>> {
            self.0.lock().unwrap().get(key).cloned()
        }
        fn save(&self, key: &str, bytes: &[u8]) -> Result<()> {
            self.0.lock().unwrap().insert(key.to_owned(), bytes.to_vec());
            Ok(())
        }
    }

    #[test]
    fn a_second_run_asks_only_what_the_first_did_not() {
        let texts: Vec<String> = (0..100).map(|i| format!("{i}{}", "x".repeat(i % 7))).collect();
        let pairs: Vec<Pair> = (0..99).map(|i| Pair::new(&texts[i], &texts[i + 1], 0.5)).collect();
        let (inner, saved) = (Counting::default(), Memory::default());
        let first: Vec<Judgement> =
            Remembered::new(&inner, &saved, "cfg").judge(&pairs[..60]).into_iter().map(Result::unwrap).collect();
        assert_eq!(inner.0.load(Ordering::SeqCst), 60);
        let all: Vec<Judgement> =
            Remembered::new(&inner, &saved, "cfg").judge(&pairs).into_iter().map(Result::unwrap).collect();
        assert_eq!(inner.0.load(Ordering::SeqCst), 99, "only the 39 new pairs are asked");
        assert_eq!(all[..60], first[..]);
        assert_eq!(all, inner.judge(&pairs).into_iter().map(Result::unwrap).collect::<Vec<_>>());
        // Other settings: nothing is reused.
        Remembered::new(&inner, &saved, "other").judge(&pairs[..10]);
        assert_eq!(inner.0.load(Ordering::SeqCst), 99 + 99 + 10);
        // A damaged checkpoint is asked again.
        saved.0.lock().unwrap().values_mut().for_each(|v| v.truncate(3));
        Remembered::new(&inner, &saved, "cfg").judge(&pairs[..5]);
        assert_eq!(inner.0.load(Ordering::SeqCst), 99 + 99 + 10 + 5);
    }
}
