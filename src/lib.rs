//! # semhash: document de-duplication that understands meaning
//!
//! A cascade of increasingly expensive tests, each applied only to what the
//! previous one left undecided:
//!
//! ```text
//! text ─normalize─► NormText ─sketch─► Signature ─index─► candidate pairs ─decide─► Verdict ─cluster─► clusters
//! ```
//!
//! 1. [`normalize`]: NFKC, invisible characters, homoglyphs, case, punctuation
//!    and whitespace, keeping offsets into the original text.
//! 2. [`sketch`]: an exact key, a character MinHash, a weighted MinHash over
//!    word shingles (IDF × token importance, boilerplate discounted, by
//!    consistent weighted sampling) and passage samples for containment.
//! 3. [`index`]: exact keys behind a Bloom filter, LSH bands chosen from the
//!    threshold, passage postings; hot buckets capped.
//! 4. [`decide`]: similarity estimates, and for short texts a word alignment
//!    that weighs what differs → relation (exact, near, contained_in,
//!    contains) and score; viral snippets reported, not merged. [`judge`]
//!    gives the pairs the model is least sure of a second opinion, under a budget.
//! 5. [`cluster`]: star clusters: every member a duplicate of its
//!    cluster's representative, never a chain of look-alikes.
//!
//! [`Deduper`] runs a batch; [`store`] keeps signatures for incremental use;
//! [`eval`] measures a run against labels; `training` (feature `train`) learns
//! the decision boundary from unlabelled corpora.
//!
//! ```
//! use semhash::{Config, Deduper, Document, util::Silent};
//!
//! let docs: Vec<Document> = [
//!     ("a", "The quick brown fox jumps over the lazy dog."),
//!     ("b", "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!"),
//!     ("c", "An entirely different sentence about compilers."),
//! ]
//! .iter()
//! .map(|(id, text)| Document { id: id.to_string(), text: text.to_string() })
//! .collect();
//! let outcome = Deduper::new(Config::default()).unwrap().dedup(&docs, &Silent).unwrap();
//! assert_eq!(outcome.docs[1].representative, "a");
//! assert_eq!(outcome.docs[2].representative, "c");
//! ```

#![warn(missing_docs)]

pub mod admit;
pub mod cluster;
pub mod config;
pub mod decide;
#[cfg(feature = "encoder")]
pub mod encoder;
pub mod error;
pub mod eval;
pub mod index;
pub mod judge;
pub mod normalize;
pub mod pipeline;
pub mod semantic;
pub mod sketch;
pub mod stages;
pub mod store;
#[cfg(feature = "train")]
pub mod training;
pub mod util;

pub use config::Config;
pub use error::{Error, Result};
pub use pipeline::{Deduper, Document};
