//! Who may ask: a request is answered only when its `Host` names this
//! server (a page that DNS rebinding pointed here names another), and a
//! request that may change or cost something (any method but GET and
//! HEAD) only when it comes from this server's own page or from no page
//! at all (no `Origin`), as `application/json`. A page of another site
//! can send a "simple" cross-site POST without asking first, but only as
//! `text/plain`, a form or multipart, and always with its own `Origin`;
//! sending JSON makes the browser ask first (a CORS preflight), which
//! this server never grants.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use hyper::Method;
use hyper::header::{CONTENT_TYPE, HOST, HeaderMap, ORIGIN};

use crate::api::Reply;

/// The `Host` header values a connection is answered for: `localhost`,
/// a loopback address (`127.0.0.1`, `[::1]`), the address the server
/// was told to listen on (`--host`) and the address the connection
/// reached, each with the server's port or without one. Anything else
/// (a name a DNS-rebinding page made point here, `evil.example`) is
/// refused, so a web page from elsewhere cannot read the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hosts {
    /// The address given to listen on (may be unspecified: `0.0.0.0`).
    pub listen: IpAddr,
    /// The local end of the connection: the address reached and the port.
    pub local: SocketAddr,
}

impl Hosts {
    /// Whether `host` (a `Host` header value) names this server.
    pub fn allows(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else {
            return false;
        };
        if port.is_some_and(|p| p != self.local.port()) {
            return false;
        }
        if name.eq_ignore_ascii_case("localhost") {
            return true;
        }
        let ip = if let Some(v6) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            match v6.parse::<Ipv6Addr>() {
                Ok(ip) => IpAddr::V6(ip),
                Err(_) => return false,
            }
        } else {
            match name.parse::<Ipv4Addr>() {
                Ok(ip) => IpAddr::V4(ip),
                Err(_) => return false,
            }
        };
        let ip = ip.to_canonical();
        ip.is_loopback()
            || (!ip.is_unspecified()
                && (ip == self.listen.to_canonical() || ip == self.local.ip().to_canonical()))
    }

    /// Whether `origin` (an `Origin` header value) is a page of this
    /// server: `http://`, a host [`Hosts::allows`], and the server's port
    /// (80 when none is written). `null` (a sandboxed page, a file) and
    /// `https://` pages are not.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let Some(host) = origin
            .get(..7)
            .filter(|scheme| scheme.eq_ignore_ascii_case("http://"))
            .map(|_| &origin[7..])
        else {
            return false;
        };
        if host.contains(['/', '?', '#', '@']) {
            return false;
        }
        matches!(split_host(host), Some((_, port)) if port.unwrap_or(80) == self.local.port())
            && self.allows(host)
    }
}

/// `name[:port]` or `[v6][:port]` split; `None` when the port is not a number.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let cut = match host.rfind(':') {
        Some(i)
            if !host[i..].contains(']') && (host.starts_with('[') || !host[..i].contains(':')) =>
        {
            i
        }
        _ => return Some((host, None)),
    };
    let port = host[cut + 1..].parse().ok()?;
    Some((&host[..cut], Some(port)))
}

/// Why a request with this method and these headers is refused before
/// its body is read, if it is: more than one `Host` (400); a `Host` that
/// is not this server or none (403); for a method other than GET and
/// HEAD, an `Origin` that is not this server's page (403) or a body that
/// is not `application/json` (415).
pub fn refusal(hosts: &Hosts, method: &Method, headers: &HeaderMap) -> Option<Reply> {
    let mut host = headers.get_all(HOST).iter();
    match (host.next().map(|h| h.to_str()), host.count()) {
        (_, extra @ 1..) => {
            return Some(Reply::error(
                400,
                format!(
                    "the request has {} Host headers: it must name one host",
                    extra + 1
                ),
            ));
        }
        (Some(Ok(h)), 0) if hosts.allows(h) => {}
        (Some(Ok(h)), 0) => {
            return Some(Reply::error(
                403,
                format!(
                    "Host {h:?} is not this server: ask for localhost, 127.0.0.1, [::1] or the address served"
                ),
            ));
        }
        _ => {
            return Some(Reply::error(
                403,
                "a request needs a Host header naming this server (localhost, 127.0.0.1, [::1] or the address served)",
            ));
        }
    }
    if matches!(*method, Method::GET | Method::HEAD) {
        return None;
    }
    let origins: Vec<_> = headers.get_all(ORIGIN).iter().collect();
    if let Some(foreign) = origins
        .iter()
        .find(|o| origins.len() > 1 || !o.to_str().is_ok_and(|o| hosts.allows_origin(o)))
    {
        let shown = String::from_utf8_lossy(foreign.as_bytes());
        return Some(Reply::error(
            403,
            format!(
                "a {method} from another site (Origin {shown:?}) is refused: only this server's own page may send one"
            ),
        ));
    }
    let types: Vec<_> = headers.get_all(CONTENT_TYPE).iter().collect();
    if !matches!(types.as_slice(), [t] if is_json(t.as_bytes())) {
        let had = match types.first() {
            Some(t) => format!("it has {:?}", String::from_utf8_lossy(t.as_bytes())),
            None => "it has none".to_string(),
        };
        return Some(Reply::error(
            415,
            format!("a {method} needs Content-Type: application/json ({had})"),
        ));
    }
    None
}

/// Whether a `Content-Type` value is `application/json` (any letter
/// case, parameters such as `; charset=utf-8` allowed).
fn is_json(value: &[u8]) -> bool {
    let media = value.split(|&b| b == b';').next().unwrap_or_default();
    media.trim_ascii().eq_ignore_ascii_case(b"application/json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::{HeaderName, HeaderValue};

    fn local() -> Hosts {
        Hosts {
            listen: IpAddr::V4(Ipv4Addr::LOCALHOST),
            local: SocketAddr::from(([127, 0, 0, 1], 8737)),
        }
    }

    #[test]
    fn only_hosts_naming_this_server_are_allowed() {
        let hosts = local();
        for ok in [
            "localhost",
            "LocalHost:8737",
            "127.0.0.1",
            "127.0.0.1:8737",
            "[::1]",
            "[::1]:8737",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8737",
            "localhost:80",
            "localhost.evil.example",
            "127.0.0.1:x",
            "127.0.0.1:",
            "[::1",
            "::1",
            "10.0.0.5",
            "0.0.0.0:8737",
            "",
        ] {
            assert!(!hosts.allows(bad), "{bad}");
        }
        // Served on every address: the one the connection reached, too.
        let lan = Hosts {
            listen: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            local: SocketAddr::from(([10, 0, 0, 5], 8737)),
        };
        assert!(lan.allows("10.0.0.5:8737") && lan.allows("localhost"));
        assert!(!lan.allows("10.0.0.6:8737") && !lan.allows("0.0.0.0"));
        // Given with --host, an IPv6 address in brackets.
        let v6 = Hosts {
            listen: "fd00::7".parse().unwrap(),
            local: "[fd00::7]:9000".parse().unwrap(),
        };
        assert!(v6.allows("[fd00:0::7]:9000") && !v6.allows("[fd00::8]:9000"));
    }

    #[test]
    fn only_this_servers_own_pages_are_allowed_origins() {
        let hosts = local();
        for ok in [
            "http://127.0.0.1:8737",
            "http://localhost:8737",
            "HTTP://[::1]:8737",
        ] {
            assert!(hosts.allows_origin(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://evil.example:8737",
            "http://127.0.0.1",
            "http://127.0.0.1:8738",
            "https://127.0.0.1:8737",
            "http://127.0.0.1:8737/",
            "http://user@127.0.0.1:8737",
            "null",
            "127.0.0.1:8737",
            "",
        ] {
            assert!(!hosts.allows_origin(bad), "{bad}");
        }
        // Served on port 80, an origin without a port is this server's.
        let port80 = Hosts {
            local: SocketAddr::from(([127, 0, 0, 1], 80)),
            ..hosts
        };
        assert!(port80.allows_origin("http://localhost"));
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            let name = HeaderName::from_bytes(k.as_bytes()).unwrap();
            map.append(name, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    fn status(method: Method, pairs: &[(&str, &str)]) -> Option<u16> {
        refusal(&local(), &method, &headers(pairs)).map(|r| r.status)
    }

    #[test]
    fn requests_are_refused_by_host_origin_and_content_type() {
        let json = ("content-type", "application/json");
        let host = ("host", "127.0.0.1:8737");
        assert_eq!(status(Method::GET, &[host]), None);
        assert_eq!(status(Method::GET, &[host, host]), Some(400));
        assert_eq!(
            status(Method::GET, &[host, ("host", "evil.example")]),
            Some(400)
        );
        assert_eq!(status(Method::GET, &[("host", "evil.example")]), Some(403));
        assert_eq!(status(Method::GET, &[]), Some(403));
        // GET and HEAD may come from anywhere the Host allows, as any type.
        let evil = ("origin", "http://evil.example");
        assert_eq!(status(Method::GET, &[host, evil]), None);
        assert_eq!(status(Method::HEAD, &[host, evil]), None);
        // A POST: this server's page or none, as JSON.
        assert_eq!(status(Method::POST, &[host, json]), None);
        let own = ("origin", "http://127.0.0.1:8737");
        assert_eq!(status(Method::POST, &[host, json, own]), None);
        assert_eq!(
            status(
                Method::POST,
                &[host, ("content-type", "Application/JSON ; charset=utf-8")]
            ),
            None
        );
        assert_eq!(status(Method::POST, &[host, json, evil]), Some(403));
        assert_eq!(status(Method::POST, &[host, json, own, evil]), Some(403));
        assert_eq!(status(Method::POST, &[host, json, own, own]), Some(403));
        assert_eq!(
            status(Method::POST, &[host, ("content-type", "text/plain"), evil]),
            Some(403)
        );
        assert_eq!(
            status(Method::POST, &[host, ("content-type", "text/plain")]),
            Some(415)
        );
        assert_eq!(status(Method::POST, &[host]), Some(415));
        for other in [
            "application/jsonx",
            "text/plain; application/json",
            "application/x-www-form-urlencoded",
        ] {
            let other = ("content-type", other);
            assert_eq!(status(Method::POST, &[host, other]), Some(415), "{other:?}");
        }
        assert_eq!(status(Method::POST, &[host, json, json]), Some(415));
        assert_eq!(status(Method::PUT, &[host, json, evil]), Some(403));
        let reply = refusal(&local(), &Method::POST, &headers(&[host, evil])).unwrap();
        let text = String::from_utf8(reply.body).unwrap();
        assert!(
            text.contains(r#"a POST from another site (Origin \"http://evil.example\")"#),
            "{text}"
        );
    }
}
