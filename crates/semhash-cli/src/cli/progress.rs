//! A progress bar on stderr, shown only on a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use semhash::util::Progress;

pub struct Bar(ProgressBar);

impl Bar {
    pub fn new(quiet: bool) -> Self {
        let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(
            ProgressStyle::with_template("{msg:>10} [{bar:40}] {human_pos}/{human_len} {per_sec} eta {eta}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Bar(bar)
    }

    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Progress for Bar {
    fn stage(&self, name: &'static str, total: u64) {
        self.0.set_message(name);
        self.0.set_length(total);
        self.0.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
}
