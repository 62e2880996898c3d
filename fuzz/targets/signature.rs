//! Signature and corpus-statistics decoding (the bytes a store or a host
//! hands back): any bytes decode or are refused; what decodes re-encodes to
//! the same bytes.

fn main() {
    // A deduper holds its stages behind trait objects; a panic ends the run.
    let deduper =
        std::panic::AssertUnwindSafe(semhash::Deduper::new(semhash::Config::default()).expect("default config"));
    let fingerprint = deduper.fingerprint();
    afl::fuzz!(|data: &[u8]| {
        if let Ok((sig, used)) = semhash::sketch::Signature::from_bytes(data, fingerprint, "fuzz") {
            assert_eq!(sig.to_bytes(fingerprint), &data[..used], "a decoded signature re-encodes");
        }
        let weights = &deduper.config().weights;
        if let Ok(stats) = semhash::sketch::CorpusStats::decode(data, fingerprint, weights, "fuzz") {
            assert_eq!(stats.encode(fingerprint), data, "decoded statistics re-encode");
        }
    });
}
