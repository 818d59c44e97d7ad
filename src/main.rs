use std::io::{IsTerminal, Write};
use std::process::ExitCode;

// Loading a cluster dump allocates millions of small strings; mimalloc halves that cost.
// `--features system-alloc` gives heaptrack (which sees only malloc) the system allocator.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use lbdoctor::app::{self, Env};
use lbdoctor::cli::Cli;
use lbdoctor::live::KubeEnv;

/// Two defaults keep memory resident that a check has finished with. mimalloc v3 gives freed
/// memory back to the system a second after it is freed (`mi_option_purge_delay`, 1000 ms): a
/// check is over by then, so what the loader freed stayed resident under everything the engines
/// built afterwards; 2 ms costs no measurable time. And mimalloc asks for transparent huge
/// pages on the memory it commits, so a kernel whose THP setting is `madvise` (Debian's) faults
/// in 2 MiB at the first touch of a region; a short-lived process gains nothing from them.
/// Measured on 1,000 nodes / 10,000 Services: peak RSS 170 -> 145 MB, then 136 -> 123 MB, at the
/// same time. `MIMALLOC_PURGE_DELAY` and `MIMALLOC_ALLOW_THP` still override either.
#[cfg(not(feature = "system-alloc"))]
fn tune_allocator() {
    // The index of `mi_option_purge_delay` in mimalloc.h's `mi_option_e` (v2 and v3 alike);
    // libmimalloc-sys names no constant for it.
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option of the allocator this binary links; any value is valid.
        #[allow(unsafe_code)]
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 2)
        };
    }
    // mimalloc's own switch (`mi_option_allow_thp`) acts only when read at its start, before
    // main; the kernel's is what it would call. Checked at each page fault, so it holds for the
    // regions mimalloc already asked huge pages for. Child processes (a kubeconfig's exec
    // credential plugin) inherit it, which costs them nothing either.
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this process's flag.
        #[allow(unsafe_code)]
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0)
        };
    }
}

/// mimalloc commits each arena it reserves whole on Linux (`mi_option_arena_eager_commit` 2:
/// "on an OS that overcommits"); committed on demand instead, slice by slice, a check on 1,000
/// nodes / 10,000 Services peaks 2.3 MB lower at the same time (docs/performance.md). The first
/// arena is reserved at the first allocation, which the Rust runtime makes before `main`: the
/// option is set from `.init_array`, which the loader runs before that. A constructor is one
/// static here; the `ctor` crate's macros would add a dependency for the same line.
/// `MIMALLOC_ARENA_EAGER_COMMIT` still overrides it.
#[cfg(all(target_os = "linux", not(feature = "system-alloc")))]
#[allow(unsafe_code)]
#[used]
#[link_section = ".init_array"]
static COMMIT_ARENAS_ON_DEMAND: extern "C" fn() = {
    extern "C" fn commit_arenas_on_demand() {
        // The index of `mi_option_arena_eager_commit` in mimalloc.h's `mi_option_e` (v3).
        const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
        if std::env::var_os("MIMALLOC_ARENA_EAGER_COMMIT").is_none() {
            // SAFETY: sets one integer option of the allocator this binary links; any value is
            // valid, and mimalloc reads its options on first use, after this.
            unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) };
        }
    }
    commit_arenas_on_demand
};

fn main() -> ExitCode {
    #[cfg(not(feature = "system-alloc"))]
    tune_allocator();
    // kubectl's plugin completion: the words are the user's half-typed command line, not ours.
    let words: Vec<String> = std::env::args().skip(1).collect();
    let completing = words.first().is_some_and(|w| w == "__complete");
    let cli = if completing {
        None
    } else {
        let matches = lbdoctor::cli::command().try_get_matches_from(lbdoctor::cli::normalize_args(std::env::args_os()));
        match matches.and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m)) {
            Ok(cli) => Some(cli),
            Err(e) => {
                let code = if e.use_stderr() { 2 } else { 0 };
                let _ = e.print();
                return ExitCode::from(code);
            }
        }
    };
    let env = Env {
        stdin: &mut std::io::stdin(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        stderr_is_terminal: std::io::stderr().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        term: std::env::var("TERM").ok(),
        columns: std::env::var("COLUMNS").ok(),
        terminal_width: terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0)),
        kube: KubeEnv { kubeconfig: std::env::var_os("KUBECONFIG"), home: std::env::home_dir() },
        cwd: std::env::current_dir().unwrap_or_default(),
        now: jiff::Timestamp::now().round(jiff::Unit::Second).map(|t| t.to_string()).unwrap_or_default(),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = match cli {
        Some(cli) => app::run(cli, env, &mut out),
        None => app::complete(&words[1..], env, &mut out),
    };
    let result = result.and_then(|failed| {
        out.flush()?;
        Ok(failed)
    });
    match result {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(app::AppError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
