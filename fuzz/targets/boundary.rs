//! Learned-boundary model files: any text loads or is refused; a loaded
//! model gives a probability in [0, 1] for the pair signals of a real pair.

fn main() {
    // A deduper holds its stages behind trait objects; a panic ends the run.
    let deduper =
        std::panic::AssertUnwindSafe(semhash::Deduper::new(semhash::Config::default()).expect("default config"));
    let (_, signals) =
        deduper.compare(&[("The quick brown fox.", "The quick brown fax!")]).expect("compare")[0].clone();
    afl::fuzz!(|data: &[u8]| {
        let Ok(json) = std::str::from_utf8(data) else { return };
        if let Ok(model) = semhash::decide::LearnedBoundary::from_json(json) {
            let (confidence, _) = model.predict(&model.input(&signals));
            let p = confidence.probability;
            assert!((0.0..=1.0).contains(&p), "probability {p}");
        }
    });
}
