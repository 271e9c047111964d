//! How long diagnosis may run: a deadline in production, a count of
//! checks in tests.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// How long diagnosis may run. A deadline in production; a count of checks
/// in tests, so the give-up path is exercised deterministically.
#[derive(Debug)]
pub struct Budget {
    kind: BudgetKind,
}

#[derive(Debug)]
enum BudgetKind {
    Deadline(Instant),
    Checks(Cell<u64>),
}

impl Budget {
    /// A budget that expires `limit` from now.
    pub fn new(limit: Duration) -> Self {
        Budget {
            kind: BudgetKind::Deadline(Instant::now() + limit),
        }
    }

    /// A budget that expires after `n` checks (for tests).
    pub fn checks(n: u64) -> Self {
        Budget {
            kind: BudgetKind::Checks(Cell::new(n)),
        }
    }

    /// Whether the budget is spent. Each call counts as one check.
    pub fn expired(&self) -> bool {
        match &self.kind {
            BudgetKind::Deadline(d) => Instant::now() >= *d,
            BudgetKind::Checks(c) => {
                let left = c.get();
                c.set(left.saturating_sub(1));
                left == 0
            }
        }
    }

    /// A deadline for one bounded sub-computation (a small diff).
    pub(super) fn step_deadline(&self) -> Instant {
        let cap = Instant::now() + Duration::from_millis(10);
        match &self.kind {
            BudgetKind::Deadline(d) => cap.min(*d),
            BudgetKind::Checks(_) => cap,
        }
    }
}
