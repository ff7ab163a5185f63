//! MySQL packet framing over a TCP or unix-socket stream: 4-byte headers (length, sequence
//! id), payloads of 16 MiB and more split and joined, one reusable buffer each way.
//!
//! The buffers start small and grow only to the largest packet seen (not to a whole result
//! set, which is consumed packet by packet): a thousand connections cost a thousand small
//! buffers, not a thousand 4 MiB ones.

use super::error::WireError;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// The largest payload one packet carries; a payload of exactly this length continues in
/// the next packet.
const MAX_PAYLOAD: usize = 0xFF_FFFF;
/// What one read asks the kernel for at least (libmariadb reads 16 KiB too).
const READ_CHUNK: usize = 16 * 1024;

pub enum Stream {
    Tcp(TcpStream),
    Unix {
        socket: UnixStream,
        /// Wait with poll(POLLIN) before each read (set once the handshake is over).
        poll_first: bool,
    },
}

impl Stream {
    pub fn unix(socket: UnixStream) -> Stream {
        Stream::Unix {
            socket,
            poll_first: false,
        }
    }

    /// Bound every read and write by `t`; `None` for the session proper, where a statement
    /// takes as long as the server needs.
    pub fn set_timeouts(&mut self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_read_timeout(t).and_then(|_| s.set_write_timeout(t)),
            Stream::Unix { socket, poll_first } => {
                *poll_first = t.is_none();
                socket
                    .set_read_timeout(t)
                    .and_then(|_| socket.set_write_timeout(t))
            }
        }
    }

    pub fn is_unix(&self) -> bool {
        matches!(self, Stream::Unix { .. })
    }

    /// A round trip is a write, then this read (a poll and a read on the unix socket). The
    /// same round trip in one io_uring_enter (send and receive linked) cost more client CPU
    /// per query on Linux 6.18, not less: the kernel's work per round trip (waking the
    /// server, copying, sleeping until the answer) stays whichever calls ask for it.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix { socket, poll_first } => {
                // A reader asleep in recv on a unix socket is woken a second time when the
                // server takes in what it was sent (the socket's write space wakes the same
                // queue), which costs a context switch per statement; poll(POLLIN) sleeps
                // through that and wakes only for the answer, as libmariadb does.
                if *poll_first {
                    wait_readable(socket)?;
                }
                socket.read(buf)
            }
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf),
            Stream::Unix { socket, .. } => socket.write_all(buf),
        }
    }
}

fn wait_readable(socket: &UnixStream) -> io::Result<()> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::AsFd;
    let mut fds = [PollFd::new(socket.as_fd(), PollFlags::POLLIN)];
    loop {
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => return Ok(()),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

pub struct Framed {
    pub stream: Stream,
    /// Bytes read and not yet consumed are `rbuf[rpos..filled]`.
    rbuf: Vec<u8>,
    rpos: usize,
    filled: usize,
    /// A payload that came split over several packets, joined.
    joined: Vec<u8>,
    /// The packet being built: 4 header bytes, then the payload.
    out: Vec<u8>,
    /// The sequence id the next packet (either way) must carry.
    seq: u8,
}

impl Framed {
    pub fn new(stream: Stream) -> Framed {
        Framed {
            stream,
            rbuf: vec![0; READ_CHUNK],
            rpos: 0,
            filled: 0,
            joined: Vec::new(),
            out: Vec::with_capacity(256),
            seq: 0,
        }
    }

    /// Start a new command (sequence 0) and return its payload buffer.
    pub fn command(&mut self) -> &mut Vec<u8> {
        self.seq = 0;
        self.reply()
    }

    /// Start the next packet of an exchange already under way (authentication).
    pub fn reply(&mut self) -> &mut Vec<u8> {
        self.out.clear();
        self.out.extend_from_slice(&[0; 4]);
        &mut self.out
    }

    /// Send the packet built since `command` or `reply`, split when 16 MiB or longer.
    pub fn send(&mut self) -> Result<(), WireError> {
        let len = self.out.len() - 4;
        if len < MAX_PAYLOAD {
            self.out[..3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
            self.out[3] = self.next_seq();
            self.stream.write_all(&self.out)?;
            return Ok(());
        }
        let payload = self.out.split_off(4);
        // A payload of an exact multiple of the maximum ends with an empty packet.
        let mut chunks: Vec<&[u8]> = payload.chunks(MAX_PAYLOAD).collect();
        if len.is_multiple_of(MAX_PAYLOAD) {
            chunks.push(&[]);
        }
        for chunk in chunks {
            let mut header = (chunk.len() as u32).to_le_bytes();
            header[3] = self.next_seq();
            self.stream.write_all(&header)?;
            self.stream.write_all(chunk)?;
        }
        Ok(())
    }

    fn next_seq(&mut self) -> u8 {
        let s = self.seq;
        self.seq = s.wrapping_add(1);
        s
    }

    /// The next packet's payload, joined when it came in parts.
    pub fn next_packet(&mut self) -> Result<&[u8], WireError> {
        let (start, len) = self.one_packet()?;
        if len < MAX_PAYLOAD {
            return Ok(&self.rbuf[start..start + len]);
        }
        self.joined.clear();
        self.joined
            .extend_from_slice(&self.rbuf[start..start + len]);
        loop {
            let (start, len) = self.one_packet()?;
            self.joined
                .extend_from_slice(&self.rbuf[start..start + len]);
            if len < MAX_PAYLOAD {
                return Ok(&self.joined);
            }
        }
    }

    /// Read until one whole packet is buffered; consume it and return where its payload is.
    fn one_packet(&mut self) -> Result<(usize, usize), WireError> {
        loop {
            let avail = self.filled - self.rpos;
            if avail >= 4 {
                let h = &self.rbuf[self.rpos..self.rpos + 4];
                let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
                if avail >= 4 + len {
                    let seq = h[3];
                    if seq != self.seq {
                        return Err(WireError::protocol(format!(
                            "packet out of order: sequence {seq}, expected {}",
                            self.seq
                        )));
                    }
                    self.seq = seq.wrapping_add(1);
                    let start = self.rpos + 4;
                    self.rpos = start + len;
                    return Ok((start, len));
                }
                self.fill(4 + len)?;
            } else {
                self.fill(4)?;
            }
        }
    }

    /// Read more bytes so that `need` bytes from `rpos` can fit, moving what is left of
    /// the buffer to its front first.
    fn fill(&mut self, need: usize) -> Result<(), WireError> {
        if self.rpos > 0 {
            self.rbuf.copy_within(self.rpos..self.filled, 0);
            self.filled -= self.rpos;
            self.rpos = 0;
        }
        if self.rbuf.len() < need {
            self.rbuf.resize(need.max(READ_CHUNK), 0);
        }
        let n = self.stream.read(&mut self.rbuf[self.filled..])?;
        if n == 0 {
            return Err(WireError::Io(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            )));
        }
        self.filled += n;
        Ok(())
    }

    /// True when nothing unread is buffered (a response was read to its end).
    pub fn drained(&self) -> bool {
        self.rpos == self.filled
    }
}

/// A length-encoded integer at `p[*at..]`, advancing `at`; `None` when truncated or NULL.
pub fn lenenc(p: &[u8], at: &mut usize) -> Option<u64> {
    let first = *p.get(*at)?;
    let (len, value) = match first {
        0..=0xFA => (1, u64::from(first)),
        0xFC => (
            3,
            u64::from(u16::from_le_bytes(
                p.get(*at + 1..*at + 3)?.try_into().ok()?,
            )),
        ),
        0xFD => {
            let b = p.get(*at + 1..*at + 4)?;
            (4, u64::from(u32::from_le_bytes([b[0], b[1], b[2], 0])))
        }
        0xFE => (
            9,
            u64::from_le_bytes(p.get(*at + 1..*at + 9)?.try_into().ok()?),
        ),
        _ => return None,
    };
    *at += len;
    Some(value)
}

/// Append `n` as a length-encoded integer.
pub fn put_lenenc(out: &mut Vec<u8>, n: u64) {
    match n {
        0..=0xFA => out.push(n as u8),
        0xFB..=0xFFFF => {
            out.push(0xFC);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0xFD);
            out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_encoded_integers_round_trip() {
        for n in [
            0,
            250,
            251,
            65_535,
            65_536,
            16_777_215,
            16_777_216,
            u64::MAX,
        ] {
            let mut buf = vec![];
            put_lenenc(&mut buf, n);
            let mut at = 0;
            assert_eq!(lenenc(&buf, &mut at), Some(n), "{n}");
            assert_eq!(at, buf.len());
        }
        assert_eq!(lenenc(&[0xFC, 1], &mut 0), None, "truncated");
        assert_eq!(lenenc(&[0xFB], &mut 0), None, "NULL");
    }

    /// A payload of 16 MiB or more goes out in parts and comes back joined, in order.
    #[test]
    fn long_payloads_are_split_and_joined() {
        let (a, b) = UnixStream::pair().unwrap();
        let mut tx = Framed::new(Stream::unix(a));
        let mut rx = Framed::new(Stream::unix(b));
        for len in [3, MAX_PAYLOAD, MAX_PAYLOAD + 10] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let writer = std::thread::scope(|s| {
                let h = s.spawn(|| {
                    tx.command().extend_from_slice(&payload);
                    tx.send().unwrap();
                });
                rx.seq = 0;
                let got = rx.next_packet().unwrap().to_vec();
                h.join().unwrap();
                got
            });
            assert_eq!(writer.len(), len);
            assert!(writer == payload, "payload of {len} bytes changed");
            assert!(rx.drained());
        }
    }

    #[test]
    fn out_of_order_packets_are_refused() {
        let (mut a, b) = UnixStream::pair().unwrap();
        a.write_all(&[1, 0, 0, 5, 0]).unwrap();
        let mut rx = Framed::new(Stream::unix(b));
        assert!(matches!(rx.next_packet(), Err(WireError::Protocol(_))));
    }
}
