//! Projection (hyperplane) files: any bytes load or are refused; a loaded
//! projection re-encodes to the same bytes and codes an embedding of its
//! width.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(p) = semhash::semantic::Projection::from_bytes(data, "fuzz") {
            assert_eq!(p.to_bytes(), data, "a loaded projection re-encodes");
            let embedding = vec![0.5f32; p.dims];
            assert_eq!(p.code(&embedding).len(), p.words());
        }
    });
}
