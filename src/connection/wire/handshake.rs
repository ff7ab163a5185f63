//! Opening a connection: the server's greeting, the client's answer, and authentication
//! (mysql_native_password, caching_sha2_password, and plugins such as MariaDB's unix_socket
//! that need nothing from the client). Packet layouts come from mysql_common.

use super::error::WireError;
use super::packets::{Framed, Stream};
use mysql_common::constants::{CapabilityFlags, MariadbCapabilities};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{AuthPlugin, AuthSwitchRequest, HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;
use mysql_common::scramble::{scramble_native, scramble_sha256};
use std::collections::HashMap;
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// What the client asks for, as libmariadb does for sysbench, less local infile and
/// multi-statements (a workload never needs them).
fn wanted() -> CapabilityFlags {
    CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_LONG_FLAG
        | CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CapabilityFlags::CLIENT_CONNECT_ATTRS
        | CapabilityFlags::CLIENT_CONNECT_WITH_DB
}

/// Where and as whom to connect.
#[derive(Clone, Copy, Debug)]
pub struct Login<'a> {
    /// When set, the unix socket; host and port are then unused.
    pub socket: Option<&'a Path>,
    pub host: &'a str,
    pub port: u16,
    pub user: &'a str,
    pub password: Option<&'a str>,
    pub database: Option<&'a str>,
}

/// The largest packet the client accepts (the protocol's maximum).
const MAX_PACKET: u32 = 1 << 30;

/// What the rest of the session needs to know about the connection.
pub struct Established {
    pub framed: Framed,
    pub connection_id: u32,
    /// MariaDB resends no column definitions for prepared statements (10.6+), as it does
    /// for sysbench's libmariadb.
    pub cache_metadata: bool,
}

pub fn open(endpoint: &Login<'_>, timeout: Duration) -> Result<Established, WireError> {
    let mut stream = match endpoint.socket {
        Some(path) => Stream::unix(UnixStream::connect(path)?),
        None => Stream::Tcp(tcp(endpoint.host, endpoint.port, timeout)?),
    };
    // No exchange of the handshake may hang forever; statements later wait as long as
    // the server takes.
    stream.set_timeouts(Some(timeout))?;
    let mut framed = Framed::new(stream);
    let (connection_id, cache_metadata) = authenticate(&mut framed, endpoint)?;
    framed.stream.set_timeouts(None)?;
    Ok(Established {
        framed,
        connection_id,
        cache_metadata,
    })
}

fn tcp(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, WireError> {
    let mut last = None;
    for addr in (host, port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                // One small request per statement: never wait to coalesce it.
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last
        .unwrap_or_else(|| std::io::Error::other(format!("{host} resolves to no address")))
        .into())
}

/// Read the greeting, answer it, and follow the server through authentication. Returns
/// the connection id and whether column definitions are cached.
fn authenticate(framed: &mut Framed, e: &Login<'_>) -> Result<(u32, bool), WireError> {
    let greeting = framed.next_packet()?;
    if greeting.first() == Some(&0xFF) {
        return Err(WireError::from_packet(greeting));
    }
    let hs: HandshakePacket = ParseBuf(greeting)
        .parse(())
        .map_err(|err| WireError::protocol(format!("unreadable server greeting: {err}")))?;
    let server = hs.capabilities();
    let mariadb = !server.contains(CapabilityFlags::CLIENT_LONG_PASSWORD);
    let mut caps = wanted() & server;
    if e.database.is_none() {
        caps.remove(CapabilityFlags::CLIENT_CONNECT_WITH_DB);
    }
    // A MariaDB server reads extended capabilities only from a client that, like it,
    // leaves out CLIENT_MYSQL (the old CLIENT_LONG_PASSWORD bit).
    let ext = if mariadb {
        hs.mariadb_ext_capabilities() & MariadbCapabilities::MARIADB_CLIENT_CACHE_METADATA
    } else {
        MariadbCapabilities::empty()
    };
    let connection_id = hs.connection_id();
    let version = hs.server_version_parsed().unwrap_or((5, 5, 5));
    let mut nonce = hs.nonce();
    let server_plugin = hs
        .auth_plugin_name_ref()
        .unwrap_or(b"mysql_native_password");
    let mut plugin = match AuthPlugin::from_bytes(server_plugin) {
        p @ (AuthPlugin::MysqlNativePassword | AuthPlugin::CachingSha2Password) => p,
        // Anything else starts from the native answer; the server switches if it must.
        _ => AuthPlugin::MysqlNativePassword,
    }
    .into_owned();
    let pw = e.password.unwrap_or("").as_bytes();
    let unix = framed.stream.is_unix();
    let scramble = answer(&plugin, &nonce, pw, unix)?;
    let attrs = HashMap::from([
        ("_client_name".to_string(), "psbench".to_string()),
        ("_pid".to_string(), std::process::id().to_string()),
    ]);
    let response = HandshakeResponse::new(
        Some(scramble),
        version,
        Some(e.user.as_bytes()),
        e.database.map(str::as_bytes),
        Some(plugin.clone()),
        caps,
        Some(attrs),
        MAX_PACKET,
    )
    .with_mariadb_ext_capabilities(ext);
    response.serialize(framed.reply());
    framed.send()?;

    loop {
        let p = framed.next_packet()?;
        match p.first() {
            Some(0x00) => break,
            Some(0xFF) => return Err(WireError::from_packet(p)),
            Some(0xFE) => {
                let switch: AuthSwitchRequest = ParseBuf(p).parse(()).map_err(|err| {
                    WireError::protocol(format!("unreadable auth switch request: {err}"))
                })?;
                plugin = switch.auth_plugin().into_owned();
                nonce = switch.plugin_data().to_vec();
                // The nonce is sent NUL-terminated.
                if nonce.last() == Some(&0) {
                    nonce.pop();
                }
                let data = answer(&plugin, &nonce, pw, unix)?;
                framed.reply().extend_from_slice(&data);
                framed.send()?;
            }
            // caching_sha2_password's verdict on the scramble: 3 = cached, accepted (an OK
            // follows), 4 = the server needs the password itself.
            Some(0x01) if plugin == AuthPlugin::CachingSha2Password => match p.get(1) {
                Some(3) => {}
                Some(4) if unix => {
                    let out = framed.reply();
                    out.extend_from_slice(pw);
                    out.push(0);
                    framed.send()?;
                }
                Some(4) => {
                    // Over TCP without TLS: ask for the server's RSA key and send the
                    // password encrypted with it.
                    framed.reply().push(2);
                    framed.send()?;
                    let key = framed.next_packet()?;
                    let pem = key
                        .get(1..)
                        .filter(|_| key.first() == Some(&0x01))
                        .ok_or_else(|| {
                            WireError::protocol("no public key in the server's answer")
                        })?;
                    let mut xored = pw.to_vec();
                    xored.push(0);
                    for (i, b) in xored.iter_mut().enumerate() {
                        *b ^= nonce[i % nonce.len().max(1)];
                    }
                    let sealed = mysql_common::crypto::encrypt(&xored, pem);
                    framed.reply().extend_from_slice(&sealed);
                    framed.send()?;
                }
                other => {
                    return Err(WireError::protocol(format!(
                        "unexpected caching_sha2_password step {other:?}"
                    )))
                }
            },
            other => {
                return Err(WireError::protocol(format!(
                    "unexpected packet {other:?} during authentication"
                )))
            }
        }
    }
    Ok((connection_id, !ext.is_empty()))
}

/// The authentication data for `plugin`.
fn answer(plugin: &AuthPlugin, nonce: &[u8], pw: &[u8], unix: bool) -> Result<Vec<u8>, WireError> {
    if pw.is_empty() {
        return Ok(Vec::new());
    }
    match plugin {
        AuthPlugin::MysqlNativePassword => Ok(scramble_native(nonce, pw)
            .map(|s| s.to_vec())
            .unwrap_or_default()),
        AuthPlugin::CachingSha2Password => Ok(scramble_sha256(nonce, pw)
            .map(|s| s.to_vec())
            .unwrap_or_default()),
        // The password in clear: only where nobody else can read it.
        AuthPlugin::MysqlClearPassword if unix => {
            let mut v = pw.to_vec();
            v.push(0);
            Ok(v)
        }
        other => Err(WireError::protocol(format!(
            "the server asks for authentication plugin '{}', which psbench's client does not \
             speak{}",
            String::from_utf8_lossy(other.as_bytes()),
            if unix { "" } else { " over TCP" }
        ))),
    }
}
