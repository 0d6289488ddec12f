//! The wire of the Linux testbed, for kernels without `netem`: each direction of a link is a
//! pair of file descriptors (the TUN device a packet leaves one namespace by, the one it enters
//! the next by), and every datagram read from the first is written to the second after its
//! serialization time at the link rate plus the propagation delay, or dropped with the
//! direction's loss probability, as the simulator's wire does (the shaper in front of the TUN
//! device spaces the packets at the rate; it hands each one over as its transmission starts).
//! Datagrams keep their order. It runs on its own thread, without the GIL, until `stop_fd`
//! becomes readable.
//!
//! Timing: the thread sleeps in `ppoll` with 1 ns timer slack until shortly before the next
//! packet is due and spins the last 100 µs (within a CPU budget), so a packet leaves within
//! microseconds of its due time when the machine is not overloaded; the lateness of every
//! packet is measured and reported, so a run states how good its wire was.

use airlab_core::counters::Quantiles;
use airlab_core::sim::Rng;
use std::collections::VecDeque;
use std::os::fd::RawFd;

/// Below this, waiting for a due time is a spin rather than a sleep.
const SPIN_NS: u64 = 200_000;
/// Spinning may take at most a quarter of each 10 ms, counted as it goes; beyond that the wire
/// only sleeps until the window ends. At high packet rates packets are due every few
/// microseconds and the spinning would take the whole core: a real-time thread that does is
/// throttled by the kernel for tens of milliseconds, and every process it shares the core
/// with stops for as long. A receiver stopped while it holds its socket lock lets segments
/// pile up in the socket backlog, which Linux acknowledges with one stretch ACK, and the
/// sender's answering burst overflows a shallow bottleneck: 100 ms windows (the budget was
/// once checked only at their end) cost a 100 Mbit/s CUBIC flow two thirds of its goodput.
const SPIN_PERIOD_NS: u64 = 10_000_000;
const SPIN_BUDGET_NS: u64 = SPIN_PERIOD_NS / 4;
/// SCHED_FIFO priority of the wire thread: above every normal process, below the kernel's
/// own real-time threads (which use 50 and up).
const REALTIME_PRIORITY: libc::c_int = 10;
/// The largest datagram read (a TUN device's MTU is at most 64 KiB).
const MAX_DATAGRAM: usize = 65_536;

/// One direction of a link, as Python describes it.
pub struct Wire {
    pub input: RawFd,
    pub output: RawFd,
    pub delay_ns: u64,
    /// Bit/s, for the serialization time; 0: none.
    pub rate_bps: u64,
    pub loss: f64,
    pub seed: u64,
}

/// What one direction carried, and how late its packets left.
#[derive(Default)]
pub struct WireStats {
    pub packets: u64,
    pub bytes: u64,
    pub dropped: u64,
    /// Packets that could not be written (the receiving end refused them).
    pub write_errors: u64,
    pub lateness: Quantiles,
    /// Whether the wire ran at real-time priority.
    pub realtime: bool,
}

struct Direction {
    wire: Wire,
    rng: Rng,
    queue: VecDeque<(u64, Vec<u8>)>,
    stats: WireStats,
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns; failures are reported, not ignored.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Keep the calling thread on `cpu`.
fn pin_to(cpu: usize) -> std::io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes within it (glibc checks
    // the index against the set's size) and sched_setaffinity reads it.
    let ok = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    };
    if ok {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Forward until `stop_fd` is readable; returns each wire's statistics, in order. With `cpu`,
/// the thread runs on that CPU only (the caller keeps the traffic processes off it).
pub fn run(wires: Vec<Wire>, stop_fd: RawFd, cpu: Option<usize>) -> std::io::Result<Vec<WireStats>> {
    if let Some(cpu) = cpu {
        pin_to(cpu)?;
    }
    // SAFETY: prctl with an integer argument; a failure only leaves the default slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    // A real-time priority keeps the traffic processes from delaying the wire on a busy
    // machine; without the privilege the wire runs at normal priority (and reports it).
    let param = libc::sched_param { sched_priority: REALTIME_PRIORITY };
    // SAFETY: sets the calling thread's policy with a valid parameter block.
    let realtime = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0;
    // Never block: a wire reads whatever arrives, and a receiver that cannot take a packet
    // loses it (a TUN device always takes it).
    for w in &wires {
        set_nonblocking(w.input)?;
        set_nonblocking(w.output)?;
    }
    let mut dirs: Vec<Direction> = wires
        .into_iter()
        .enumerate()
        .map(|(i, wire)| Direction {
            rng: Rng::stream(wire.seed, &format!("wire{i}")),
            wire,
            queue: VecDeque::new(),
            stats: WireStats::default(),
        })
        .collect();
    let mut fds: Vec<libc::pollfd> = dirs.iter().map(|d| d.wire.input).chain([stop_fd]).map(poll_in).collect();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let (mut period_start, mut spun) = (now_ns(), 0u64);
    loop {
        let now = now_ns();
        if now - period_start >= SPIN_PERIOD_NS {
            (period_start, spun) = (now, 0);
        }
        let spinning_allowed = spun < SPIN_BUDGET_NS;
        let mut next_due = u64::MAX;
        for d in &mut dirs {
            while let Some(&(due, _)) = d.queue.front() {
                if due > now {
                    next_due = next_due.min(due);
                    break;
                }
                let (_, pkt) = d.queue.pop_front().expect("a front was seen");
                // SAFETY: writes `pkt.len()` bytes from a live buffer to the caller's descriptor.
                let n = unsafe { libc::write(d.wire.output, pkt.as_ptr().cast(), pkt.len()) };
                if n < 0 {
                    d.stats.write_errors += 1;
                }
                d.stats.lateness.add(now - due);
            }
        }
        let before_wait = now_ns();
        let wait = next_due.saturating_sub(before_wait);
        let timeout = match next_due {
            u64::MAX => None,
            _ if !spinning_allowed => Some(wait),
            _ if wait < SPIN_NS => Some(0),
            _ => Some(wait - SPIN_NS / 2),
        };
        let ts =
            timeout.map(|ns| libc::timespec { tv_sec: (ns / 1_000_000_000) as _, tv_nsec: (ns % 1_000_000_000) as _ });
        let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        for p in &mut fds {
            p.revents = 0;
        }
        // SAFETY: `fds` is a valid array of pollfd of the given length; `ts_ptr` is null or
        // points at a live timespec.
        let ready = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ts_ptr, std::ptr::null()) };
        if ready < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if timeout == Some(0) {
            spun += now_ns() - before_wait;
        }
        if fds.last().is_some_and(|p| p.revents != 0) {
            break;
        }
        for (d, p) in dirs.iter_mut().zip(&fds) {
            if p.revents & libc::POLLIN == 0 {
                continue;
            }
            loop {
                // SAFETY: reads at most `buf.len()` bytes into a live buffer.
                let n = unsafe { libc::read(d.wire.input, buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    break;
                }
                let n = n as usize;
                d.stats.packets += 1;
                d.stats.bytes += n as u64;
                if d.wire.loss > 0.0 && d.rng.chance(d.wire.loss) {
                    d.stats.dropped += 1;
                    continue;
                }
                let serialization = match d.wire.rate_bps {
                    0 => 0,
                    rate => (n as u64 * 8 * 1_000_000_000).div_ceil(rate),
                };
                d.queue.push_back((now_ns() + serialization + d.wire.delay_ns, buf[..n].to_vec()));
            }
        }
    }
    Ok(dirs.into_iter().map(|d| WireStats { realtime, ..d.stats }).collect())
}

fn poll_in(fd: RawFd) -> libc::pollfd {
    libc::pollfd { fd, events: libc::POLLIN, revents: 0 }
}
