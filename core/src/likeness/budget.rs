//! How much work diagnosis may do, counted in units of work, never in wall
//! time.
//!
//! A diagnosis is advice an agent acts on, so the same call must get the
//! same answer on an idle machine and on one whose cores are all busy. A
//! deadline cannot promise that: under load it expires earlier in the work,
//! and the answer changes (a region found on one run, a worse one or none
//! on the next). So each step of the search spends the units its work
//! costs, in proportion to the bytes and lines it touches, and the search
//! gives up (`diagnosis_incomplete`) when the call's units are spent, at
//! the same point of the work every time.
//!
//! One unit is about the cost of searching one KiB of text for one needle
//! with `memmem` (some 0.1 µs on current hardware); keying a line costs
//! [`KEY_COST`] units per KiB, comparing lines [`LINE_COST`] units each.
//! [`DEFAULT_UNITS`] buys some 150 ms of work on the reference machine
//! (docs/diagnosis.md), which diagnoses any near miss in a 10,000-line file
//! many times over and a 200 MiB file in one anchored pass.

use std::cell::Cell;

/// Units of work a failed call may spend on diagnosis (shared by its
/// failing edits or blocks).
pub(crate) const DEFAULT_UNITS: u64 = 1_500_000;
/// Units of work a failed call may spend on diagnosis (shared by its
/// failing edits); see [`Budget`].
pub const DEFAULT_BUDGET: u64 = DEFAULT_UNITS;
/// Units per KiB of text whose lines are keyed (whitespace, case and
/// punctuation folded: about 20 times the cost of a `memmem` pass).
pub(crate) const KEY_COST: u64 = 20;
/// Units per pair of lines compared (a key comparison or a bigram score).
pub(crate) const LINE_COST: u64 = 4;
/// Lines scanned between two budget checks.
pub(crate) const CHECK_EVERY: usize = 1024;

/// Units of work to score the windows around one candidate start of a
/// block of `lines` lines (25 windows of about as many lines each, every
/// pair of lines compared at most once per window).
pub(super) fn window_cost(lines: usize) -> u64 {
    25 * (lines as u64 + 4) * LINE_COST
}

/// The work diagnosis may still do. Each step spends what it costs; tests
/// can count steps instead of units (`Budget::checks`) to exercise the
/// give-up path at a chosen point.
#[derive(Debug)]
pub struct Budget {
    left: Cell<u64>,
    per_step: bool,
}

impl Budget {
    /// A budget of `units` units of work.
    pub fn new(units: u64) -> Self {
        Budget {
            left: Cell::new(units),
            per_step: false,
        }
    }

    /// A budget that runs out after `n` steps, whatever each costs (for
    /// tests).
    #[cfg(test)]
    pub(crate) fn checks(n: u64) -> Self {
        Budget {
            left: Cell::new(n),
            per_step: true,
        }
    }

    /// Spends `units` for the next step of work; `true` when the budget
    /// cannot pay for it (it is then spent, and every later step refused).
    pub(crate) fn spend(&self, units: u64) -> bool {
        let cost = if self.per_step { 1 } else { units.max(1) };
        let left = self.left.get();
        if left < cost || left == 0 {
            self.left.set(0);
            return true;
        }
        self.left.set(left - cost);
        false
    }

    /// Whether the budget is spent: a step of one unit.
    pub(crate) fn expired(&self) -> bool {
        self.spend(1)
    }

    /// Units of work for keying `bytes` bytes of lines.
    pub(crate) fn keying(bytes: usize) -> u64 {
        (bytes as u64 * KEY_COST) / 1024 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_work_runs_out_at_the_same_point_whatever_the_clock() {
        // A budget measured in time would be spent by the sleep; one
        // measured in work is not.
        let b = Budget::new(DEFAULT_UNITS);
        std::thread::sleep(std::time::Duration::from_millis(250));
        assert!(!b.expired());
        let b = Budget::new(100);
        assert!(!b.spend(60));
        assert!(b.spend(50), "40 left cannot pay 50");
        assert!(b.expired(), "spent for good");
        let b = Budget::checks(2);
        assert!(!b.spend(1_000_000) && !b.spend(7));
        assert!(b.spend(1));
    }
}
