//! What the user sees on stderr while lists run, only on a terminal: a total line, one line per
//! request still running, and the ones that failed.

use std::collections::HashMap;
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

/// indicatif spinners on stderr; the caller decides that stderr is a terminal. A total line,
/// a line per list with pages still to come (most lists fit one page and never get one), and one
/// line per distinct failure.
pub struct Bars {
    multi: MultiProgress,
    total: ProgressBar,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    bars: HashMap<String, ProgressBar>,
    /// Objects so far per list, for the total.
    objects: HashMap<String, usize>,
    done: usize,
    failures: Vec<String>,
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
        Bars { multi, total, state: Mutex::new(State::default()) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update_total(&self, state: &State) {
        let objects: usize = state.objects.values().sum();
        self.total.set_message(format!("reading the cluster: {} lists done, {objects} objects", state.done));
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
    fn start(&self, _what: &str) {}

    fn page(&self, what: &str, objects: usize, pages: usize, remaining: Option<i64>) {
        let mut state = self.state();
        state.objects.insert(what.to_string(), objects);
        if remaining.is_some_and(|r| r > 0) {
            let bar = state.bars.entry(what.to_string()).or_insert_with(|| {
                let bar = self.multi.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {prefix:.bold} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_prefix(what.to_string());
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                bar
            });
            let more = remaining.map(|r| format!(", {r} to go")).unwrap_or_default();
            bar.set_message(format!("{objects} objects, {pages} page(s){more}"));
        }
        self.update_total(&state);
    }

    fn finish(&self, what: &str, objects: usize, _pages: usize, failure: Option<&str>) {
        let mut state = self.state();
        if let Some(bar) = state.bars.remove(what) {
            bar.finish_and_clear();
        }
        state.objects.insert(what.to_string(), objects);
        state.done += 1;
        if let Some(reason) = failure {
            // Eight Event lists refused are one line: the resource and namespace, not the selector.
            let resource = what.split(" -l ").next().unwrap_or(what).split(" --field-selector ").next().unwrap_or(what);
            let line = format!("{resource}: not read ({reason})");
            if !state.failures.contains(&line) {
                let _ = self.multi.println(&line);
                state.failures.push(line);
            }
        }
        self.update_total(&state);
    }
}
