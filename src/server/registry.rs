//! Every server this process started and still owns, so that SIGINT, SIGTERM or SIGHUP stops
//! them all before psbench exits: no orphan server is left behind.

use super::process::{ProcState, ProcessId};
use nix::sys::signal::Signal;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, Once};
use std::time::{Duration, Instant};

/// Each server with the signal that asks it to stop (PostgreSQL's fast shutdown is SIGINT).
static SERVERS: Mutex<Option<HashMap<u64, (ProcessId, Signal)>>> = Mutex::new(None);
static NEXT: AtomicU64 = AtomicU64::new(1);
static HANDLER: Once = Once::new();
/// Set by the signal handler itself, the moment a terminating signal arrives (not when the
/// thread that stops the servers wakes): work failing from then on is the stop's doing.
static STOPPING: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// True after a terminating signal: a failure now is the servers being stopped, not a result.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Whether a failure is the stop's doing, waiting up to `grace` for the signal. A scheduler
/// cancelling a job signals each of its processes in turn: a child (cp, a client) can die and
/// fail the run a moment before psbench's own signal arrives.
pub fn failure_was_a_stop(grace: Duration) -> bool {
    let start = Instant::now();
    while !stopping() && start.elapsed() < grace {
        std::thread::sleep(Duration::from_millis(10));
    }
    stopping()
}

/// Leave the exit to the signal thread: it prints where the finished work is, stops the
/// servers and exits with 128 + the signal.
pub fn wait_for_the_stop() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

/// Hooks run on a terminating signal before the servers are stopped (e.g. to flush results).
type Hook = Box<dyn Fn() + Send + Sync>;
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

/// Record a started server and how it is asked to stop; returns the key to unregister it with.
pub fn register(id: ProcessId, stop: Signal) -> u64 {
    install_signal_handler();
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    SERVERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(key, (id, stop));
    key
}

pub fn unregister(key: u64) {
    if let Some(m) = SERVERS.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        m.remove(&key);
    }
}

/// Run `hook` when a terminating signal arrives, before servers are stopped.
pub fn on_signal(hook: impl Fn() + Send + Sync + 'static) {
    install_signal_handler();
    HOOKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Box::new(hook));
}

/// Stop every registered server: its stop signal to all at once, up to `grace` for them to
/// finish, then SIGKILL for the rest.
pub fn stop_all(grace: Duration) {
    let ids: Vec<(ProcessId, Signal)> = SERVERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_mut()
        .map(|m| m.drain().map(|(_, v)| v).collect())
        .unwrap_or_default();
    for (id, stop) in &ids {
        id.signal(*stop);
    }
    let start = Instant::now();
    while start.elapsed() < grace && ids.iter().any(|(i, _)| i.state() == ProcState::Running) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for (id, _) in &ids {
        id.signal(Signal::SIGKILL);
    }
}

/// Installed once, on the first registered server (or explicitly by the CLI).
pub fn install_signal_handler() {
    HANDLER.call_once(|| {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            if let Err(e) = signal_hook::flag::register(sig, Arc::clone(&STOPPING)) {
                eprintln!("psbench: warning: cannot install signal handler: {e}");
                return;
            }
        }
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("psbench: warning: cannot install signal handler: {e}");
                return;
            }
        };
        std::thread::Builder::new()
            .name("psbench-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let name = match sig {
                        SIGINT => "SIGINT",
                        SIGTERM => "SIGTERM",
                        _ => "SIGHUP",
                    };
                    STOPPING.store(true, Ordering::SeqCst);
                    eprintln!("\npsbench: {name} received: stopping the servers it started");
                    for hook in HOOKS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                        hook();
                    }
                    stop_all(Duration::from_secs(8));
                    std::process::exit(128 + sig);
                }
            })
            .ok();
    });
}
