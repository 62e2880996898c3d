//! A store's log: any bytes decode, drop a torn tail, or are refused as
//! corrupted; the valid prefix decodes to the same signatures on its own.

fn main() {
    // A deduper holds its stages behind trait objects; a panic ends the run.
    let deduper =
        std::panic::AssertUnwindSafe(semhash::Deduper::new(semhash::Config::default()).expect("default config"));
    let fingerprint = deduper.fingerprint();
    afl::fuzz!(|data: &[u8]| {
        if let Ok(log) = semhash::store::decode_log(data, fingerprint, "fuzz") {
            let valid = &data[..log.valid_len as usize];
            let again = semhash::store::decode_log(valid, fingerprint, "fuzz").expect("the valid prefix decodes");
            assert!(again.torn_tail.is_none());
            assert_eq!(again.live.len(), log.live.len());
        }
    });
}
