//! A counting global allocator for the CLI binary only: `memplan bench` reports each run's peak
//! heap (and CPU time) from it (the library itself never measures memory; a browser or another host would count
//! differently). Two atomics per allocation: a few percent on allocation-heavy runs, nothing
//! measurable on the planners, which allocate in large flat blocks.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes it has handed out and the most at any time.
pub struct Counting {
    current: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    pub const fn new() -> Self {
        Counting { current: AtomicUsize::new(0), peak: AtomicUsize::new(0) }
    }

    fn grew(&self, bytes: usize) {
        let now = self.current.fetch_add(bytes, Ordering::Relaxed) + bytes;
        // A load first: the peak rarely moves, and a read-only check keeps its cache line shared.
        if now > self.peak.load(Ordering::Relaxed) {
            self.peak.fetch_max(now, Ordering::Relaxed);
        }
    }

    fn shrank(&self, bytes: usize) {
        self.current.fetch_sub(bytes, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `layout` is `System`'s.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` came from `System` with this layout.
        unsafe { System.dealloc(pointer, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `pointer` came from `System` with `layout`; the caller checked `new_size`.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                self.grew(new_size - layout.size());
            } else {
                self.shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

impl memplan::bench::Meter for Counting {
    fn reset(&self) -> usize {
        reset_peak_resident();
        let now = self.current.load(Ordering::Relaxed);
        self.peak.store(now, Ordering::Relaxed);
        now
    }

    fn peak_resident(&self) -> Option<usize> {
        peak_resident()
    }

    fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    fn cpu_time(&self) -> Option<std::time::Duration> {
        process_cpu_time()
    }
}

/// User plus system time of the process (every thread, finished ones included), from Linux's
/// `/proc/self/stat` (fields 14 and 15, in clock ticks of 1/100 s, the value of `CLK_TCK` on every
/// Linux architecture memplan builds for); `None` elsewhere.
fn process_cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(std::time::Duration::from_millis((user + system) * 10))
}

/// The process's peak resident memory in bytes: Linux's `VmHWM` in `/proc/self/status` (in kB),
/// which counts what the allocator's count cannot (the memory it keeps after a free, the program
/// itself); `None` elsewhere.
pub fn peak_resident() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kilobytes: usize = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kilobytes * 1024)
}

/// Starts the peak resident memory again from what is resident now (Linux: `5` written to
/// `/proc/self/clear_refs`), so that each run of a bench has its own. Where that is refused the
/// peak stays the process's since it started, which is still its peak.
fn reset_peak_resident() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}
