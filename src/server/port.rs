//! Free TCP ports on the loopback interface, chosen at start and never fixed.

use anyhow::{Context, Result};
use std::net::TcpListener;

/// A port that was free a moment ago. Another process may take it before the server binds;
/// the sandbox then sees "Address already in use" and asks again.
pub fn free_port() -> Result<u16> {
    let listener =
        TcpListener::bind("127.0.0.1:0").context("finding a free TCP port on 127.0.0.1")?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ports_are_nonzero_and_bindable() {
        let p = super::free_port().unwrap();
        assert!(p > 0);
        std::net::TcpListener::bind(("127.0.0.1", p)).unwrap();
    }
}
