//! The default normalizer chain on any text: the tracked run (which maps
//! spans back to the original) and the untracked one give the same text,
//! and every span (64 spread over the text) maps to a slice of the original
//! on character boundaries.

use semhash::normalize::Normalizers;

fn main() {
    let chain = Normalizers::default();
    afl::fuzz!(|data: &[u8]| {
        let original = String::from_utf8_lossy(data);
        let tracked = chain.run(&original);
        assert_eq!(tracked.as_str(), chain.text(&original), "tracked and untracked runs agree");
        let text = tracked.as_str();
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        // At most 64 spans, spread over the text: one span costs up to the
        // length of a run of combining marks, so every span of a long run
        // would make an execution quadratic in the input.
        for w in bounds.windows(2).step_by(bounds.len().div_ceil(64).max(1)) {
            let span = tracked.original_span(&original, w[0], w[1]);
            assert!(original.get(span.clone()).is_some(), "span {span:?} of {:?}", &text[w[0]..w[1]]);
        }
    });
}
