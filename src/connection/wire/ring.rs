//! A statement's round trip in one system call: an io_uring with the request's send and the
//! answer's receive linked, submitted together and waited for together.
//!
//! A blocking client pays a write, a poll and a read per statement; here the kernel does the
//! three inside one `io_uring_enter`. Where io_uring is not allowed (the
//! `kernel.io_uring_disabled` sysctl, a seccomp filter, an old kernel) or `PSBENCH_IO_URING=off`
//! is set, [`Ring::open`] says so and the connection keeps its plain reads and writes.

use io_uring::{cqueue, opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread::ThreadId;

/// Tags of the two operations of a round trip.
const SEND: u64 = 1;
const RECV: u64 = 2;
/// Recv's "arm the poll first" (Linux 5.19): right after the request its answer is not in yet,
/// so the receive skips the attempt that would find nothing.
const RECVSEND_POLL_FIRST: u16 = 1;
/// Room for one round trip (the completion queue gets twice as many).
const ENTRIES: u32 = 4;

/// Whether this process may use io_uring: not asked yet, yes, no.
static ALLOWED: AtomicU8 = AtomicU8::new(UNKNOWN);
const UNKNOWN: u8 = 0;
const YES: u8 = 1;
const NO: u8 = 2;

pub struct Ring {
    ring: IoUring,
    /// The kernel knows [`RECVSEND_POLL_FIRST`].
    poll_first: bool,
    /// The ring answers only the thread that made it (single issuer, deferred task work).
    owner: ThreadId,
}

impl Ring {
    /// A ring for the connected socket `fd`, owned by the calling thread; `None` when io_uring
    /// is not allowed here or the ring could not be made (the connection then reads and writes
    /// as before).
    pub fn open(fd: RawFd) -> Option<Ring> {
        match ALLOWED.load(Ordering::Relaxed) {
            NO => return None,
            UNKNOWN if disabled_by_environment() => {
                ALLOWED.store(NO, Ordering::Relaxed);
                return None;
            }
            _ => {}
        }
        match build(fd) {
            Ok((ring, poll_first)) => {
                ALLOWED.store(YES, Ordering::Relaxed);
                Some(Ring {
                    ring,
                    poll_first,
                    owner: std::thread::current().id(),
                })
            }
            Err(e) => {
                // Refused for the whole process; anything else (out of files, memory) for
                // this connection only.
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EPERM | libc::ENOSYS | libc::EACCES)
                ) {
                    ALLOWED.store(NO, Ordering::Relaxed);
                }
                None
            }
        }
    }

    /// True when the calling thread made this ring (another thread must make its own).
    pub fn is_owned_here(&self) -> bool {
        self.owner == std::thread::current().id()
    }

    /// Send all of `out`, then receive into `buf` what the peer has sent (at least one
    /// byte, or 0 at its end), in one system call.
    pub fn round_trip(&mut self, out: &[u8], buf: &mut [u8]) -> io::Result<usize> {
        let send = opcode::Send::new(types::Fixed(0), out.as_ptr(), len32(out.len()))
            .flags(libc::MSG_WAITALL | libc::MSG_NOSIGNAL)
            .build()
            .user_data(SEND)
            // A successful send posts nothing: the one completion waited for is the receive.
            .flags(squeue::Flags::IO_LINK | squeue::Flags::SKIP_SUCCESS);
        self.push(&send);
        let ioprio = if self.poll_first {
            RECVSEND_POLL_FIRST
        } else {
            0
        };
        self.receive(buf, ioprio)
    }

    /// Receive into `buf` what the peer has sent (at least one byte, or 0 at its end).
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.receive(buf, 0)
    }

    fn receive(&mut self, buf: &mut [u8], ioprio: u16) -> io::Result<usize> {
        let recv = opcode::Recv::new(types::Fixed(0), buf.as_mut_ptr(), len32(buf.len()))
            .ioprio(ioprio)
            .build()
            .user_data(RECV);
        self.push(&recv);
        // The buffers stay borrowed until the receive's completion is in: only then may
        // this return, whatever interrupted the wait.
        loop {
            if let Err(e) = self.ring.submit_and_wait(1) {
                let transient = matches!(
                    e.raw_os_error(),
                    Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)
                );
                if !transient && !self.ring.submission().is_empty() {
                    // Nothing reached the kernel, so no buffer is lent out; the ring still
                    // holds the entries and must not be used again.
                    return Err(e);
                }
            }
            if let Some(cqe) = self.ring.completion().next() {
                // Only a failed send posts a completion, and the receive linked to it is then
                // cancelled without one (it never started).
                return match cqe.result() {
                    res if res < 0 => Err(io::Error::from_raw_os_error(-res)),
                    _ if cqe.user_data() == SEND => Err(io::Error::other("short send")),
                    res => Ok(res as usize),
                };
            }
        }
    }

    fn push(&mut self, entry: &squeue::Entry) {
        // SAFETY: the buffers an entry points to outlive its completion, which `recv` waits
        // for before returning; the queue has room since every call drains it.
        unsafe { self.ring.submission().push(entry) }
            .expect("a drained submission queue has room for a round trip");
    }
}

fn len32(n: usize) -> u32 {
    n.min(u32::MAX as usize) as u32
}

fn disabled_by_environment() -> bool {
    std::env::var("PSBENCH_IO_URING").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "off" | "no" | "false"
        )
    })
}

/// The cheapest ring this kernel offers, with `fd` as its one registered file, and whether
/// receives may arm their poll first. Deferred task work (Linux 6.1, which also knows
/// [`RECVSEND_POLL_FIRST`]) runs the receive only when this thread waits for it.
fn build(fd: RawFd) -> io::Result<(IoUring, bool)> {
    let ring = IoUring::<squeue::Entry, cqueue::Entry>::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(ENTRIES)
        .map(|r| (r, true))
        .or_else(|e| match e.raw_os_error() {
            Some(libc::EINVAL) => IoUring::new(ENTRIES).map(|r| (r, false)),
            _ => Err(e),
        })?;
    ring.0.submitter().register_files(&[fd])?;
    Ok(ring)
}
