//! Progress on a terminal: a bar or spinner fed from a counter while work runs.

use std::{
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
    time::Duration,
};

use indicatif::{ProgressBar, ProgressStyle};

/// Runs `work` while `bar` shows `count` (styled by `template`), updated ten times a second;
/// the bar is cleared however the work ends.
pub fn while_counting<T>(bar: ProgressBar, template: &str, count: &AtomicU64, work: impl FnOnce() -> T) -> T {
    bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    /// Ends the progress thread however the work ends (a panic included, or the scope would
    /// wait for the thread forever).
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                bar.set_position(count.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let _done = Done(&done);
        work()
    });
    bar.finish_and_clear();
    result
}
