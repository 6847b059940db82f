//! The limits sign-in runs under, and what the sign-in handler asks of them: the key of an
//! account and of a client address, the failure counts, and the argon2 gate.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;

use super::gate::Gate;
use super::throttle::{Throttle, Window};

/// How the client's address is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientAddress {
    /// The TCP peer: the dashboard faces the clients itself.
    #[default]
    Peer,
    /// The last address in `X-Forwarded-For`, the one the reverse proxy in front appended
    /// (earlier ones are the client's to write). Only behind a proxy that sets it.
    ForwardedFor,
}

/// Sign-in throttling and the argon2 gate's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInLimits {
    /// Failures of one account (by email, whether it exists or not).
    pub account: Window,
    /// Failures from one client address (an IPv6 address counts by its /64).
    pub address: Window,
    /// argon2 verifications at once.
    pub concurrent: usize,
    /// Sign-ins waiting for a verification slot; any beyond get 503.
    pub queue: usize,
    pub client_address: ClientAddress,
}

impl Default for SignInLimits {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        SignInLimits {
            account: Window {
                limit: 5,
                span: Duration::from_secs(15 * 60),
            },
            address: Window {
                limit: 20,
                span: Duration::from_secs(60),
            },
            concurrent: cores,
            queue: 64,
            client_address: ClientAddress::Peer,
        }
    }
}

/// The failure counts and the gate, shared by every sign-in of the process.
pub struct SignInGuard {
    throttle: Arc<Throttle>,
    gate: Gate,
    client_address: ClientAddress,
}

impl SignInGuard {
    pub fn new(limits: SignInLimits) -> SignInGuard {
        SignInGuard {
            throttle: Throttle::new(limits.account, limits.address),
            gate: Gate::new(limits.concurrent, limits.queue),
            client_address: limits.client_address,
        }
    }

    pub fn throttle(&self) -> &Arc<Throttle> {
        &self.throttle
    }

    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The address failures are counted for.
    pub fn address_key(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> String {
        let forwarded = || {
            headers
                .get_all("x-forwarded-for")
                .iter()
                .next_back()
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.rsplit(',').next())
                .and_then(|ip| ip.trim().parse::<IpAddr>().ok())
        };
        let ip = match self.client_address {
            ClientAddress::ForwardedFor => forwarded().or(peer.map(|p| p.ip())),
            ClientAddress::Peer => peer.map(|p| p.ip()),
        };
        match ip.map(|ip| ip.to_canonical()) {
            Some(IpAddr::V6(v6)) => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
            Some(IpAddr::V4(v4)) => v4.to_string(),
            None => "unknown".into(),
        }
    }
}

/// The account failures are counted for: the email as accounts are stored (trimmed, lower
/// case), cut at the longest an account's email can be.
pub fn account_key(email: &str) -> String {
    email.trim().to_lowercase().chars().take(254).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(client_address: ClientAddress) -> SignInGuard {
        SignInGuard::new(SignInLimits {
            client_address,
            ..SignInLimits::default()
        })
    }

    #[test]
    fn addresses_are_the_peer_unless_a_proxy_is_trusted() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "6.6.6.6, 203.0.113.7".parse().unwrap());
        let peer: SocketAddr = "10.0.0.1:5000".parse().unwrap();
        assert_eq!(
            guard(ClientAddress::Peer).address_key(&headers, Some(peer)),
            "10.0.0.1"
        );
        assert_eq!(
            guard(ClientAddress::ForwardedFor).address_key(&headers, Some(peer)),
            "203.0.113.7",
            "the proxy's own entry, not the client's"
        );
        let v6: SocketAddr = "[2001:db8:1:2:3:4:5:6]:443".parse().unwrap();
        assert_eq!(
            guard(ClientAddress::Peer).address_key(&HeaderMap::new(), Some(v6)),
            "2001:db8:1:2::/64"
        );
        let mapped: SocketAddr = "[::ffff:10.0.0.2]:1".parse().unwrap();
        assert_eq!(
            guard(ClientAddress::Peer).address_key(&HeaderMap::new(), Some(mapped)),
            "10.0.0.2"
        );
    }

    #[test]
    fn accounts_are_keyed_as_stored() {
        assert_eq!(account_key("  Ada@Example.COM "), "ada@example.com");
        assert_eq!(account_key(&"a".repeat(10_000)).len(), 254);
    }
}
