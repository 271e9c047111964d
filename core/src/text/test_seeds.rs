//! Where the property tests of this crate keep the seeds of past failures
//! (tests only).
//!
//! Proptest's default replays the seeds in `proptest-regressions/` (tracked,
//! so every checkout re-runs the cases that once failed) and appends a new
//! failure's seed to the same file. A test run must never change a tracked
//! file, so [`config`] reads the tracked seeds as before but writes a new
//! one under `target/proptest-regressions/` (and says where on stderr):
//! whoever fixes the failure copies the line into the tracked file on
//! purpose.

use std::any::Any;
use std::fmt::Debug;
use std::io::Write;
use std::path::{Path, PathBuf};

use proptest::test_runner::{Config, FailurePersistence, FileFailurePersistence, PersistedSeed};

/// The tracked seed files, beside the sources.
const TRACKED: FileFailurePersistence =
    FileFailurePersistence::SourceParallel("proptest-regressions");

/// A property-test configuration of `cases` cases that replays the tracked
/// seeds and saves new failures outside the source tree.
pub(crate) fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: Some(Box::new(Seeds)),
        ..Config::default()
    }
}

/// Reads seeds from the tracked files, writes them under `target/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seeds;

/// Where a failure of a test in `source_file` (as `file!()` names it:
/// `core/src/…` from the workspace, `src/…` from the crate) is saved: in
/// the workspace's `target/`, by its path below `src/`.
pub(crate) fn saved_at(source_file: &str) -> PathBuf {
    let rel = Path::new(source_file);
    let below_src = rel
        .iter()
        .position(|c| c == "src")
        .map_or(rel.to_path_buf(), |i| rel.iter().skip(i + 1).collect());
    workspace_target()
        .join("proptest-regressions")
        .join(below_src)
        .with_extension("txt")
}

/// The workspace's build directory (the crate is `core/` in the workspace).
fn workspace_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new(env!("CARGO_MANIFEST_DIR")))
        .join("target")
}

impl FailurePersistence for Seeds {
    fn load_persisted_failures2(&self, source_file: Option<&'static str>) -> Vec<PersistedSeed> {
        TRACKED.load_persisted_failures2(source_file)
    }

    fn save_persisted_failure2(
        &mut self,
        source_file: Option<&'static str>,
        seed: PersistedSeed,
        shrunken_value: &dyn Debug,
    ) {
        let Some(source) = source_file else { return };
        let path = saved_at(source);
        let line = format!("cc {seed} # shrinks to {shrunken_value:?}").replace(['\n', '\r'], " ");
        let saved = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
            })
            .and_then(|mut f| writeln!(f, "{line}"));
        match saved {
            Ok(()) => eprintln!(
                "proptest: failing seed saved to {} (copy it into proptest-regressions/ to keep it)",
                path.display()
            ),
            Err(e) => eprintln!("proptest: could not save the failing seed ({e}): {line}"),
        }
    }

    fn box_clone(&self) -> Box<dyn FailurePersistence> {
        Box::new(*self)
    }

    fn eq(&self, other: &dyn FailurePersistence) -> bool {
        other.as_any().downcast_ref::<Seeds>().is_some()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_saved_under_target_and_tracked_seeds_are_read() {
        // Named as `file!()` names it in the workspace, and from the crate.
        for source in ["core/src/matching/many.rs", "src/matching/many.rs"] {
            let at = saved_at(source);
            assert!(at.starts_with(workspace_target()), "{}", at.display());
            assert!(at.ends_with("target/proptest-regressions/matching/many.txt"));
        }
        assert!(!workspace_target().starts_with(env!("CARGO_MANIFEST_DIR")));
        // The tracked seeds of many.rs are replayed, named as `file!()`
        // names many.rs in this build (`core/src/…` in the workspace).
        let many: &'static str = file!()
            .replace("text/test_seeds.rs", "matching/many.rs")
            .leak();
        assert!(many.ends_with("src/matching/many.rs"), "{many}");
        assert!(!Seeds.load_persisted_failures2(Some(many)).is_empty());
    }

    #[test]
    fn a_failing_property_test_writes_its_seed_under_target_only() {
        use proptest::test_runner::{TestCaseError, TestRunner};
        let source = "src/text/test_seeds_probe.rs";
        let saved = saved_at(source);
        let tracked = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("proptest-regressions/text/test_seeds_probe.txt");
        let _ = std::fs::remove_file(&saved);
        let mut cfg = config(4);
        cfg.source_file = Some(source);
        let r = TestRunner::new(cfg).run(&(0u32..10), |_| Err(TestCaseError::fail("always")));
        assert!(r.is_err());
        let line = std::fs::read_to_string(&saved).unwrap();
        assert!(line.starts_with("cc "), "{line}");
        assert!(!tracked.exists(), "{}", tracked.display());
        std::fs::remove_file(&saved).unwrap();
    }

    #[test]
    fn every_property_test_of_the_crate_uses_this_config() {
        // A `proptest_config` that is not `config(...)` would write its
        // failures into the tracked files again.
        fn walk(dir: &Path, bad: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, bad);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    for (n, l) in text.lines().enumerate() {
                        if l.contains("#![proptest_config(") && !l.contains("test_seeds::config(") {
                            bad.push(format!("{}:{}", p.display(), n + 1));
                        }
                    }
                }
            }
        }
        let mut bad = Vec::new();
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut bad);
        assert!(
            bad.is_empty(),
            "proptest configs writing into the tree: {bad:?}"
        );
    }
}
