//! Money is integer micro-dollars everywhere (1 USD = 1 000 000); these format it for people
//! without float arithmetic.

/// `$0.0012`: four decimals, rounded up so a cost is never under-stated.
pub fn usd(micro: u64) -> String {
    let tenth_mills = micro.div_ceil(100);
    format!("${}.{:04}", tenth_mills / 10_000, tenth_mills % 10_000)
}

/// `$0.001234`: every decimal there is.
pub fn usd_exact(micro: u64) -> String {
    format!("${}.{:06}", micro / 1_000_000, micro % 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_print_from_integers() {
        assert_eq!(usd(0), "$0.0000");
        assert_eq!(usd(1), "$0.0001");
        assert_eq!(usd(2_500_000), "$2.5000");
        assert_eq!(usd_exact(1_234_567), "$1.234567");
    }
}
