//! Spend caps, checked BEFORE each call against that call's worst case, so a run can never
//! overshoot its budget: the prompt's tokens are known (estimated from above) and the output is
//! capped by the request's max tokens.

use std::sync::Mutex;

use windup_model::money::usd_exact as usd;

/// A run's caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Dollars as integer micro-dollars; `None` means no spend cap.
    pub micro_usd: Option<u64>,
    /// LLM calls the whole run may make (default 100).
    pub calls_per_run: u32,
    /// LLM calls one scenario may make, retries and continuations included (default 8), so one
    /// scenario cannot eat the run's budget.
    pub calls_per_scenario: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            micro_usd: Some(1_000_000),
            calls_per_run: 100,
            calls_per_scenario: 8,
        }
    }
}

#[derive(Debug, Default)]
struct Ledger {
    /// Settled spend plus the worst case of calls in flight.
    committed_micro_usd: u64,
    calls: u32,
}

/// What the run has spent so far, shared by its scenarios.
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    state: Mutex<Ledger>,
}

/// A call let through, holding its worst case until the real cost is known.
#[derive(Debug)]
#[must_use = "settle the reservation with the call's real cost"]
pub(crate) struct Reservation {
    worst_case_micro_usd: u64,
}

/// Why a call is not let through: the cap it would break.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BudgetRefusal {
    /// The scenario has made all the calls it may.
    #[error(
        "the scenario already made {made} LLM calls, its cap (budget.calls_per_scenario = {cap})"
    )]
    ScenarioCalls { made: u32, cap: u32 },
    /// The run has made all the calls it may.
    #[error("the run already made {made} LLM calls, its cap (budget.calls_per_run = {cap})")]
    RunCalls { made: u32, cap: u32 },
    /// The call's worst case, with what is already committed, is over the spend cap.
    #[error(
        "the next call could cost up to {} with {} already spent, over the run's budget of {} (budget.usd_per_run or --budget-usd)",
        usd(*.worst_case_micro_usd),
        usd(*.spent_micro_usd),
        usd(*.cap_micro_usd)
    )]
    Spend {
        worst_case_micro_usd: u64,
        spent_micro_usd: u64,
        cap_micro_usd: u64,
    },
}

impl Budget {
    /// A budget with nothing spent yet.
    pub(crate) fn new(limits: Limits) -> Self {
        Budget {
            limits,
            state: Mutex::new(Ledger::default()),
        }
    }

    /// Lets a call through when every cap still holds after it, at its worst case.
    /// `scenario_calls` is how many calls the scenario has made so far.
    pub(crate) fn admit(
        &self,
        scenario_calls: u32,
        worst_case_micro_usd: u64,
    ) -> Result<Reservation, BudgetRefusal> {
        let mut s = self.state.lock().expect("budget lock");
        if scenario_calls >= self.limits.calls_per_scenario {
            return Err(BudgetRefusal::ScenarioCalls {
                made: scenario_calls,
                cap: self.limits.calls_per_scenario,
            });
        }
        if s.calls >= self.limits.calls_per_run {
            return Err(BudgetRefusal::RunCalls {
                made: s.calls,
                cap: self.limits.calls_per_run,
            });
        }
        if let Some(cap) = self.limits.micro_usd
            && s.committed_micro_usd + worst_case_micro_usd > cap
        {
            return Err(BudgetRefusal::Spend {
                worst_case_micro_usd,
                spent_micro_usd: s.committed_micro_usd,
                cap_micro_usd: cap,
            });
        }
        s.calls += 1;
        s.committed_micro_usd += worst_case_micro_usd;
        Ok(Reservation {
            worst_case_micro_usd,
        })
    }

    /// Replaces a reservation's worst case with what the call really cost.
    pub(crate) fn settle(&self, reservation: Reservation, cost_micro_usd: u64) {
        let mut s = self.state.lock().expect("budget lock");
        s.committed_micro_usd =
            s.committed_micro_usd - reservation.worst_case_micro_usd + cost_micro_usd;
    }

    /// Settled spend so far (only the tests need to read it back).
    #[cfg(test)]
    fn spent_micro_usd(&self) -> u64 {
        self.state.lock().expect("budget lock").committed_micro_usd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_could_overshoot_is_refused() {
        let b = Budget::new(Limits {
            micro_usd: Some(1_000),
            calls_per_run: 10,
            calls_per_scenario: 10,
        });
        let r = b.admit(0, 600).unwrap();
        assert!(
            b.admit(0, 600).is_err(),
            "the worst case is held while in flight"
        );
        b.settle(r, 100);
        assert_eq!(b.spent_micro_usd(), 100);
        let r = b.admit(1, 900).unwrap();
        b.settle(r, 900);
        let err = b.admit(2, 1).unwrap_err().to_string();
        assert!(err.contains("$0.001000"), "{err}");
    }

    #[test]
    fn call_caps_hold() {
        let b = Budget::new(Limits {
            micro_usd: None,
            calls_per_run: 2,
            calls_per_scenario: 1,
        });
        assert!(
            b.admit(1, 0)
                .unwrap_err()
                .to_string()
                .contains("calls_per_scenario")
        );
        let r = b.admit(0, 0).unwrap();
        b.settle(r, 0);
        let r = b.admit(0, 0).unwrap();
        b.settle(r, 0);
        assert!(
            b.admit(0, 0)
                .unwrap_err()
                .to_string()
                .contains("calls_per_run")
        );
    }
}
