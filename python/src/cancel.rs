//! Stopping a solve from Python: the `CancelToken` a caller holds, and the waiting loop that
//! lets Ctrl-C (or any signal handler) cancel a run through its [`CancelFlag`] while the GIL is
//! released.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use memplan::CancelFlag;
use pyo3::prelude::*;

/// How often the waiting thread looks at Python's signal handlers (and so how soon Ctrl-C
/// cancels a solve).
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// A cancel button for solves: pass it as ``cancel=`` to ``memplan.solve`` or
/// ``memplan.solve_many`` and call ``cancel()`` from any thread (or a signal handler); the
/// solve then stops soon with its best plan so far, ``stopped`` = ``Stopped.CANCELLED``.
/// A token stays cancelled: use a new one for the next solve.
#[pyclass(frozen, module = "memplan")]
pub struct CancelToken {
    flag: CancelFlag,
}

#[pymethods]
impl CancelToken {
    #[new]
    fn new() -> CancelToken {
        CancelToken { flag: CancelFlag::new() }
    }

    /// Asks every solve that holds this token to stop.
    fn cancel(&self) {
        self.flag.cancel();
    }

    /// ``True`` once ``cancel()`` was called.
    #[getter]
    fn cancelled(&self) -> bool {
        self.flag.is_cancelled()
    }

    fn __repr__(&self) -> String {
        format!("<memplan.CancelToken cancelled={}>", if self.flag.is_cancelled() { "True" } else { "False" })
    }
}

impl CancelToken {
    /// The core's flag this token sets.
    pub fn flag(&self) -> &CancelFlag {
        &self.flag
    }
}

/// Runs `work` on a thread of its own with the GIL released, polling Python's signal handlers
/// while it runs. A handler that raises (Ctrl-C's `KeyboardInterrupt`) cancels the work through
/// `cancel`; its exception is raised once the work has stopped, so no solve outlives the call.
pub fn run_detached<T: Send + 'static>(
    py: Python<'_>,
    cancel: &CancelFlag,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    // The worker sets the flag and wakes the waiting thread, which otherwise wakes every
    // SIGNAL_POLL to run Python's signal handlers.
    let finished = Arc::new((Mutex::new(false), Condvar::new()));
    let done = finished.clone();
    let worker = std::thread::Builder::new().name("memplan-solve".into()).spawn(move || {
        let value = work();
        let (flag, wake) = &*done;
        *flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        value
    })?;
    let mut interrupted = None;
    loop {
        let ended = py.detach(|| {
            let (flag, wake) = &*finished;
            let guard = flag.lock().unwrap_or_else(|e| e.into_inner());
            let (guard, _) =
                wake.wait_timeout_while(guard, SIGNAL_POLL, |ended| !*ended).unwrap_or_else(|e| e.into_inner());
            *guard
        });
        if ended {
            break;
        }
        if interrupted.is_none()
            && let Err(error) = py.check_signals()
        {
            cancel.cancel();
            interrupted = Some(error);
        }
    }
    let value = py.detach(|| worker.join()).unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    match interrupted {
        Some(error) => Err(error),
        None => Ok(value),
    }
}
