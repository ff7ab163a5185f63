//! How a statement or a connection attempt on the wire client failed.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The server answered with an error packet.
    #[error("ERROR {code} ({state}): {message}")]
    Server {
        code: u16,
        state: String,
        message: String,
    },
    /// The socket failed or the server closed it.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The server sent something this client does not understand: the connection cannot
    /// be trusted any more.
    #[error("protocol error: {0}")]
    Protocol(String),
}

impl WireError {
    /// The server's error code, when the server refused.
    pub fn code(&self) -> Option<u16> {
        match self {
            WireError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// An error packet's payload (after its 0xFF): code, `#` and SQL state, message.
    pub fn from_packet(payload: &[u8]) -> WireError {
        let Some(code) = payload.get(1..3) else {
            return WireError::Protocol("truncated error packet".into());
        };
        let code = u16::from_le_bytes([code[0], code[1]]);
        let rest = &payload[3..];
        let (state, message) = match rest.first() {
            Some(b'#') if rest.len() >= 6 => (&rest[1..6], &rest[6..]),
            _ => (&b"HY000"[..], rest),
        };
        WireError::Server {
            code,
            state: String::from_utf8_lossy(state).into_owned(),
            message: String::from_utf8_lossy(message).into_owned(),
        }
    }

    pub(super) fn protocol(what: impl Into<String>) -> WireError {
        WireError::Protocol(what.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_code_state_and_message() {
        let mut p = vec![0xFF, 0x26, 0x04, b'#'];
        p.extend_from_slice(b"23000Duplicate entry '1' for key 'PRIMARY'");
        let e = WireError::from_packet(&p);
        assert_eq!(e.code(), Some(1062));
        assert_eq!(
            e.to_string(),
            "ERROR 1062 (23000): Duplicate entry '1' for key 'PRIMARY'"
        );
        // Before the handshake a server sends no SQL state.
        let mut p = vec![0xFF, 0x10, 0x04];
        p.extend_from_slice(b"Too many connections");
        assert_eq!(WireError::from_packet(&p).code(), Some(1040));
        assert!(matches!(
            WireError::from_packet(&[0xFF, 1]),
            WireError::Protocol(_)
        ));
    }
}
