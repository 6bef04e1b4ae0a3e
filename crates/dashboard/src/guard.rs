//! Requests to a loopback-only dashboard must be addressed to this machine by name
//! (`Host: 127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`). Listening on 127.0.0.1 keeps
//! other machines out, but a page of another site open in the user's browser could rebind
//! its own host name to 127.0.0.1 (DNS rebinding) and read the history; its requests carry
//! that site's name as `Host` and are refused here. With `--listen` on another address the
//! user chose to expose the dashboard, and every host name is answered.

use axum::extract::{Request, State};
use axum::http::header::HOST;
use axum::middleware::Next;
use axum::response::Response;

/// Whether the `Host` header names this machine's loopback: `localhost` or a loopback
/// address, with any port. A request without one (HTTP/1.0) is local by construction.
pub(crate) fn is_local_host(host: Option<&str>) -> bool {
    let Some(host) = host else {
        return true;
    };
    let name = match host.strip_prefix('[') {
        // An IPv6 literal: `[::1]:8040`.
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _port)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The middleware: refuses (403) a request whose `Host` is not local when `loopback_only`.
pub(crate) async fn local_requests_only(
    State(loopback_only): State<bool>,
    request: Request,
    next: Next,
) -> Response {
    let host = request.headers().get(HOST).and_then(|v| v.to_str().ok());
    if loopback_only && !is_local_host(host) {
        return crate::pages::forbidden_host(host.unwrap_or_default());
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::is_local_host;

    #[test]
    fn loopback_names_and_addresses_are_local_other_names_are_not() {
        for local in [
            None,
            Some("127.0.0.1:8040"),
            Some("localhost:8040"),
            Some("LOCALHOST"),
            Some("[::1]:8040"),
            Some("127.0.0.2"),
        ] {
            assert!(is_local_host(local), "{local:?}");
        }
        for remote in [
            Some("evil.example:8040"),
            Some("10.0.0.5:8040"),
            Some("[2001:db8::1]:80"),
            Some("localhost.evil.example"),
            Some(""),
        ] {
            assert!(!is_local_host(remote), "{remote:?}");
        }
    }
}
