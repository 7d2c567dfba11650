//! Ctrl-C, SIGTERM and SIGHUP during a write: the temporary files of the
//! writes under way are removed, then the process ends as the signal
//! would have ended it (exit status 128 + signal number in a shell).

/// Starts a thread that waits for SIGINT / SIGTERM / SIGHUP and then
/// removes every live temporary file (`sylcol_atomic`) before
/// dying of that signal. A failure to install it is reported, not fatal:
/// the next run still sweeps what is left.
#[cfg(unix)]
pub fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            note!(
                "sylcol: warning: cannot watch for Ctrl-C ({e}); an interrupted write may leave a temporary file"
            );
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                sylcol_atomic::abandon_all(|| {
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                });
            }
        });
    if let Err(e) = spawned {
        note!("sylcol: warning: cannot watch for Ctrl-C ({e})");
    }
}

/// Elsewhere the next run's sweep removes what an interrupted one left.
#[cfg(not(unix))]
pub fn clean_up_on_signals() {}
