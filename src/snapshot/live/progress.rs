//! What the user sees on stderr while lists run, only on a terminal: a total line, one line per
//! request still running, and the ones that failed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

pub trait Progress: Send + Sync {
    fn start(&self, what: &str);
    /// After each page: objects so far, pages so far, what the server says remains.
    fn page(&self, what: &str, objects: usize, pages: usize, remaining: Option<i64>);
    fn finish(&self, what: &str, objects: usize, pages: usize, failure: Option<&str>);
}

/// For pipes, files and tests: nothing at all.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: &str) {}
    fn page(&self, _: &str, _: usize, _: usize, _: Option<i64>) {}
    fn finish(&self, _: &str, _: usize, _: usize, _: Option<&str>) {}
}

/// indicatif spinners on stderr; the caller decides that stderr is a terminal.
pub struct Bars {
    multi: MultiProgress,
    total: ProgressBar,
    done: AtomicUsize,
    objects: AtomicUsize,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl Bars {
    pub fn new() -> Bars {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let total = multi.add(ProgressBar::new_spinner());
        total.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        total.set_message("reading the cluster");
        total.enable_steady_tick(std::time::Duration::from_millis(120));
        Bars { multi, total, done: AtomicUsize::new(0), objects: AtomicUsize::new(0), bars: Mutex::new(HashMap::new()) }
    }

    fn bar(&self, what: &str) -> ProgressBar {
        let mut bars = self.bars.lock().unwrap_or_else(|p| p.into_inner());
        bars.entry(what.to_string())
            .or_insert_with(|| {
                let bar = self.multi.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {prefix:.bold} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_prefix(what.to_string());
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                bar
            })
            .clone()
    }

    /// Removes every line: stdout follows, and the screen should hold only the result.
    pub fn clear(&self) {
        let _ = self.multi.clear();
    }
}

impl Default for Bars {
    fn default() -> Self {
        Bars::new()
    }
}

impl Progress for Bars {
    fn start(&self, what: &str) {
        self.bar(what).set_message("listing…");
    }

    fn page(&self, what: &str, objects: usize, pages: usize, remaining: Option<i64>) {
        let more = remaining.map(|r| format!(", {r} to go")).unwrap_or_default();
        self.bar(what).set_message(format!("{objects} objects, {pages} page(s){more}"));
    }

    fn finish(&self, what: &str, objects: usize, _pages: usize, failure: Option<&str>) {
        let bar = self.bar(what);
        match failure {
            // Stays on screen: the report will say what this leaves unknown.
            Some(reason) => bar.abandon_with_message(format!("not read: {reason}")),
            None => bar.finish_and_clear(),
        }
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.objects.fetch_add(objects, Ordering::Relaxed) + objects;
        self.total.set_message(format!("reading the cluster: {done} lists done, {total} objects"));
    }
}
