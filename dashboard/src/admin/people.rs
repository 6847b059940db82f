//! People who sign in to the pages.

use crate::error::ApiError;
use crate::secret;
use crate::store::Store;
use crate::time::now_ms;

pub async fn create_user(store: &dyn Store, email: &str, password: &str) -> Result<(), ApiError> {
    if !email.contains('@') || email.len() > 254 {
        return Err(ApiError::unprocessable(
            "invalid_email",
            "give an email address",
        ));
    }
    if password.chars().count() < 12 {
        return Err(ApiError::unprocessable(
            "weak_password",
            "use a password of at least 12 characters",
        ));
    }
    let hash = secret::hash_password(password)
        .map_err(|e| ApiError::unprocessable("invalid_password", format!("hashing failed: {e}")))?;
    Ok(store
        .create_user(&email.to_lowercase(), &hash, now_ms())
        .await?)
}
