//! Structural page identity: SHA-256 of the page's visible interactive elements as
//! `tag|role|type`, with no text and no data, so environment noise does not split identities.

use sha2::{Digest, Sha256};

use crate::browser::{BrowserError, Session, injected};

/// `sha256:<hex>` of the tokens, one per line, in page order.
pub fn hash(tokens: &[String]) -> String {
    let mut hasher = Sha256::new();
    for t in tokens {
        hasher.update(t.as_bytes());
        hasher.update(b"\n");
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// The current page's signature.
pub async fn of_page(session: &Session) -> Result<String, BrowserError> {
    let tokens = injected::signature(session).await?;
    Ok(hash(&tokens))
}
