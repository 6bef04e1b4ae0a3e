//! Where `diskmeter serve` listens: `--listen` as given, else `--port` on 127.0.0.1 (a
//! HOST:PORT there must be a loopback address: the dashboard has no authentication), else
//! 127.0.0.1:8040.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The port the dashboard listens on when not told.
pub const DEFAULT_PORT: u16 = 8040;

/// Why `--port` or `--listen` names no address to listen on.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AddressError {
    /// `--listen` is not an address and port.
    #[error("--listen {0}: give an address and port, such as 0.0.0.0:{DEFAULT_PORT} or [::1]:{DEFAULT_PORT}")]
    Listen(String),
    /// `--port` is neither a port nor an address and port.
    #[error("--port {0}: give a port number (0 picks a free one) or 127.0.0.1:PORT")]
    Port(String),
    /// `--port` names an address other hosts reach.
    #[error("--port {text}: {ip} is not a loopback address; the dashboard has no authentication, so another address takes --listen {text}")]
    NotLoopback {
        /// What was given.
        text: String,
        /// Its address.
        ip: IpAddr,
    },
}

/// The address to listen on, from `--port` and `--listen` (at most one is given).
pub fn listen_address(
    port: Option<&str>,
    listen: Option<&str>,
) -> Result<SocketAddr, AddressError> {
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    if let Some(text) = listen {
        return parse_address(text).ok_or_else(|| AddressError::Listen(text.to_string()));
    }
    let Some(text) = port else {
        return Ok(SocketAddr::new(loopback, DEFAULT_PORT));
    };
    if let Ok(port) = text.trim().parse::<u16>() {
        return Ok(SocketAddr::new(loopback, port));
    }
    let address = parse_address(text).ok_or_else(|| AddressError::Port(text.to_string()))?;
    if !address.ip().is_loopback() {
        return Err(AddressError::NotLoopback {
            text: text.to_string(),
            ip: address.ip(),
        });
    }
    Ok(address)
}

/// `ADDR:PORT`, `[V6]:PORT` or `localhost:PORT`.
fn parse_address(text: &str) -> Option<SocketAddr> {
    let text = text.trim();
    if let Ok(address) = text.parse::<SocketAddr>() {
        return Some(address);
    }
    let port = text.strip_prefix("localhost:")?.parse::<u16>().ok()?;
    Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_loopback_on_8040_and_a_port_stays_on_loopback() {
        assert_eq!(
            listen_address(None, None).unwrap().to_string(),
            "127.0.0.1:8040"
        );
        assert_eq!(
            listen_address(Some("0"), None).unwrap().to_string(),
            "127.0.0.1:0"
        );
        for loopback in ["127.0.0.1:9000", "localhost:9000", "[::1]:9000"] {
            assert!(listen_address(Some(loopback), None)
                .unwrap()
                .ip()
                .is_loopback());
        }
    }

    #[test]
    fn a_non_loopback_port_is_refused_naming_listen() {
        for text in ["1.2.3.4:0", "0.0.0.0:8040", "[::]:8040"] {
            let error = listen_address(Some(text), None).unwrap_err().to_string();
            assert!(error.contains("--listen"), "{error}");
        }
        assert!(listen_address(Some("nonsense"), None).is_err());
    }

    #[test]
    fn listen_takes_any_address() {
        let address = listen_address(None, Some("0.0.0.0:8041")).unwrap();
        assert_eq!(address.to_string(), "0.0.0.0:8041");
        assert!(listen_address(None, Some("8041")).is_err());
    }
}
