//! UTC epoch milliseconds, the one time representation in storage.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub fn now_ms() -> i64 {
    to_ms(OffsetDateTime::now_utc())
}

pub fn to_ms(t: OffsetDateTime) -> i64 {
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

fn from_ms(ms: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// The time to the whole second, as the API and pages show it.
pub fn to_second(ms: i64) -> OffsetDateTime {
    from_ms(ms)
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// `2026-11-30T05:10:00Z`: RFC 3339 in UTC.
pub fn rfc3339(ms: i64) -> String {
    to_second(ms).format(&Rfc3339).unwrap_or_default()
}

/// `2026-11-30 05:10 UTC`, for people.
pub fn display(ms: i64) -> String {
    let t = from_ms(ms);
    format!("{} {:02}:{:02} UTC", t.date(), t.hour(), t.minute())
}

/// The UTC day, `YYYY-MM-DD`.
pub fn day(ms: i64) -> String {
    from_ms(ms).date().to_string()
}

/// The UTC day `days` before now.
pub fn days_ago(days: i64) -> String {
    day(now_ms() - days * 86_400_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(day(86_400_000 + 5), "1970-01-02");
        assert_eq!(display(3_600_000), "1970-01-01 01:00 UTC");
    }
}
