//! A batch killed half-way through its renames, tried as an unlucky user
//! would: some files new, the others old, and the originals of the new
//! ones under temp names. The next call of the engine puts every file the
//! batch had replaced, created or removed back as it was (all old, as a
//! failed call leaves them); a file changed since by someone else is left
//! as it is. Batch writers killed at random points leave, after the next
//! call, every batch whole.
//!
//! The writer is this test binary run again as a child (`PFT_BATCH_CHILD`),
//! which arms a hook at a rename of the commit that SIGKILLs the process.
#![cfg(all(target_os = "linux", feature = "fault-injection"))]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use patch_file_core::api;
use serde_json::{json, Value};

const CHILD: &str = "PFT_BATCH_CHILD";
const FILES: usize = 4;

fn name(i: usize) -> String {
    format!("f{i}.txt")
}

fn old(i: usize) -> String {
    format!("value {i} = old\n")
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root })
}

/// The batch the child runs: every file's `old` becomes `new`, `gone.txt`
/// is deleted and `made.txt` created (a patch), so that each kind of step
/// has a file in it.
fn patch() -> String {
    let mut p = String::from("*** Begin Patch\n");
    for i in 0..FILES {
        p.push_str(&format!(
            "*** Update File: {}\n@@\n-value {i} = old\n+value {i} = new\n",
            name(i)
        ));
    }
    p.push_str("*** Delete File: gone.txt\n*** Add File: made.txt\n+made\n*** End Patch\n");
    p
}

/// The child, by `PFT_BATCH_CHILD=<what>:<root>`: `kill-<step>-<n>` runs
/// [`patch`] and is SIGKILLed at its `n`-th `rename` or `dirfsync` step; `edit` edits `other.txt`
/// (dry run with `edit-dry`) and prints the result; `stress<seed>` runs
/// batches that move all 8 files to the next generation, until killed.
/// Each child has the state directory its parent gives it, so that no
/// other test of this process (which share one) recovers its batch first.
#[test]
fn child_batch_writer() {
    let Some(spec) = std::env::var_os(CHILD) else {
        return;
    };
    let spec = spec.to_string_lossy().into_owned();
    let (what, root) = spec.split_once(':').unwrap();
    let root = Path::new(root);
    if let Some(at) = what.strip_prefix("kill-") {
        use patch_file_core::testing::dir::Step;
        let (step, n) = at.split_once('-').unwrap();
        let step = if step == "rename" {
            Step::Rename
        } else {
            Step::DirFsync
        };
        patch_file_core::testing::dir::fault::arm_hook(step, n.parse().unwrap(), || {
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL)
                .unwrap();
        });
        let r = api::apply_patch(&json!({ "patch": patch() }), Some(&opts(root)));
        panic!("the writer was not killed: {r}");
    }
    if what == "edit-while-killed" {
        // The batch is killed while this edit runs (at its commit's
        // rename, after its start found nothing to put back).
        let (root2, state) = (
            root.to_path_buf(),
            std::env::var_os("PATCH_FILE_STATE_DIR").unwrap(),
        );
        patch_file_core::testing::dir::fault::arm_hook(
            patch_file_core::testing::dir::Step::Rename,
            0,
            move || killed_at(&root2, Path::new(&state), "rename-3"),
        );
    }
    if what == "edit-killed-before-sweep" {
        // The batch is killed after this edit's commit looked for dead
        // batches and before its sweep lists the directory.
        let (root2, state) = (
            root.to_path_buf(),
            std::env::var_os("PATCH_FILE_STATE_DIR").unwrap(),
        );
        patch_file_core::testing::dir::fault::arm_hook(
            patch_file_core::testing::dir::Step::Sweep,
            0,
            move || killed_at(&root2, Path::new(&state), "rename-3"),
        );
    }
    if let Some(edit) = what.strip_prefix("edit") {
        let r = api::patch_file(
            &json!({"file_path": "other.txt", "search_block": "x = 1", "replace_block": "x = 2",
                    "dry_run": edit == "-dry"}),
            Some(&opts(root)),
        );
        println!("RESULT {r}");
        return;
    }
    let o = json!({"workspaceRoot": root, "durable": false});
    let mut rng: u64 = what.trim_start_matches("stress").parse::<u64>().unwrap() * 7919 + 1;
    loop {
        // A pause at one of the renames, so that kills land between them.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let pause = std::time::Duration::from_millis(rng % 6);
        patch_file_core::testing::dir::fault::disarm();
        patch_file_core::testing::dir::fault::arm_hook(
            patch_file_core::testing::dir::Step::Rename,
            1 + rng % 8,
            move || std::thread::sleep(pause),
        );
        let cur = fs::read_to_string(root.join(name(0))).unwrap_or_default();
        let g: u64 = generation(&cur).unwrap_or(0);
        let input = json!({"files": (0..8).map(|i| json!({"file_path": name(i),
            "search_block": format!("generation {g}\n"),
            "replace_block": format!("generation {}\n", g + 1)})).collect::<Vec<_>>()});
        let _ = api::batch_patch_files(&input, Some(&o));
    }
}

fn generation(text: &str) -> Option<u64> {
    text.strip_prefix("generation ")?
        .strip_suffix('\n')?
        .parse()
        .ok()
}

/// A workspace (`<t>/ws`) and a state directory (`<t>/state`).
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(t.path()).unwrap();
    let (root, state) = (base.join("ws"), base.join("state"));
    fs::create_dir(&root).unwrap();
    for i in 0..FILES {
        fs::write(root.join(name(i)), old(i)).unwrap();
    }
    fs::write(root.join("gone.txt"), "to delete\n").unwrap();
    fs::write(root.join("other.txt"), "x = 1\n").unwrap();
    (t, root, state)
}

/// The child doing `what` in `root`, with the state directory `state`.
fn child(what: &str, root: &Path, state: &Path) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "--exact",
        &crate::common::test_name(module_path!(), "child_batch_writer"),
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, format!("{what}:{}", root.display()))
    .env("PATCH_FILE_STATE_DIR", state);
    c
}

/// Runs the batch in a child until the kill at `step`, as `<step>-<n>`.
fn killed_at(root: &Path, state: &Path, step: &str) {
    let out = child(&format!("kill-{step}"), root, state)
        .output()
        .unwrap();
    crate::common::assert_killed(&out);
}

/// The next call (an edit of `other.txt`: `edit`, `edit-dry`, or
/// `edit-while-killed`), in a child.
fn next_call(root: &Path, state: &Path, what: &str) -> Value {
    let out = child(what, root, state).output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    let line = out
        .lines()
        .find_map(|l| Some(l.split_once("RESULT ")?.1))
        .expect("a result");
    serde_json::from_str(line).unwrap()
}

fn content(root: &Path, n: &str) -> Option<String> {
    fs::read_to_string(root.join(n)).ok()
}

fn temps(root: &Path) -> Vec<String> {
    fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".pft-"))
        .collect()
}

fn all_old(root: &Path) -> bool {
    (0..FILES).all(|i| content(root, &name(i)) == Some(old(i)))
        && content(root, "gone.txt").as_deref() == Some("to delete\n")
        && content(root, "made.txt").is_none()
}

/// Killed after 2 of its renames (its rename 0 comes before them): the next call (an edit of another file)
/// puts the batch's files back, removes its temp files, and says so.
#[test]
fn a_batch_killed_between_renames_is_put_back_by_the_next_call() {
    let (_t, root, state) = workspace();
    killed_at(&root, &state, "rename-3");
    let fresh: Vec<bool> = (0..FILES)
        .map(|i| content(&root, &name(i)) != Some(old(i)))
        .collect();
    assert_eq!(
        fresh,
        [true, true, false, false],
        "the kill landed elsewhere"
    );
    assert!(!temps(&root).is_empty());
    let r = next_call(&root, &state, "edit");
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        all_old(&root),
        "{:?}",
        (0..FILES)
            .map(|i| content(&root, &name(i)))
            .collect::<Vec<_>>()
    );
    assert_eq!(temps(&root), Vec::<String>::new());
    let warned = r["warnings"].as_array().map(|w| {
        w.iter()
            .any(|w| w.as_str().unwrap().contains("interrupted"))
    });
    assert_eq!(warned, Some(true), "{r}");
    // The batch again, now whole (this process's state has no record).
    let r = api::apply_patch(&json!({ "patch": patch() }), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(content(&root, "made.txt").as_deref(), Some("made\n"));
}

/// Killed after every rename and the deletion: the batch is still put
/// back (the call never answered), the deleted file too.
#[test]
fn a_batch_killed_after_its_last_step_is_put_back_too() {
    let (_t, root, state) = workspace();
    // At the directories' flush, after every rename.
    killed_at(&root, &state, "dirfsync-2");
    assert!(content(&root, "gone.txt").is_none() && content(&root, "made.txt").is_some());
    let r = next_call(&root, &state, "edit-dry");
    assert_eq!(r["ok"], true, "{r}");
    assert!(all_old(&root));
    assert_eq!(temps(&root), Vec::<String>::new());
}

/// A file of the dead batch that someone changed since (in place, or by
/// replacing it) is not the batch's to put back: it keeps that change;
/// the batch's other files go back.
#[test]
fn a_file_changed_since_the_kill_keeps_its_change() {
    let (_t, root, state) = workspace();
    killed_at(&root, &state, "rename-3");
    fs::write(root.join(name(0)), "edited by hand\n").unwrap();
    let r = next_call(&root, &state, "edit");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        content(&root, &name(0)).as_deref(),
        Some("edited by hand\n")
    );
    for i in 1..FILES {
        assert_eq!(content(&root, &name(i)), Some(old(i)), "{i}");
    }
}

/// Batch writers killed at random points: after each kill, the next call
/// leaves all 8 files at one generation.
#[test]
fn killed_batch_writers_never_leave_a_mixed_batch_after_the_next_call() {
    use std::os::unix::process::ExitStatusExt;
    let (_t, root, state) = workspace();
    for i in 0..8 {
        fs::write(root.join(name(i)), "generation 0\n").unwrap();
    }
    let gens = || -> Vec<Option<u64>> {
        (0..8)
            .map(|i| generation(&fs::read_to_string(root.join(name(i))).unwrap_or_default()))
            .collect()
    };
    let mut seed = 0x5eed_b47cu64;
    let (mut kills, mut mixed) = (0, 0);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::time::Instant::now() < until {
        let mut c = child(&format!("stress{kills}"), &root, &state)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(std::time::Duration::from_millis(15 + seed % 50));
        c.kill().unwrap();
        assert_eq!(
            c.wait().unwrap().signal(),
            Some(9),
            "the writer ended by itself"
        );
        kills += 1;
        let before = gens();
        mixed += usize::from(before.iter().any(|g| g != &before[0]));
        let r = next_call(&root, &state, "edit-dry");
        assert_eq!(r["ok"], true, "{r}");
        let after = gens();
        assert!(
            after.iter().all(|g| g.is_some() && g == &after[0]),
            "a mixed batch after the next call (before: {before:?}): {after:?}"
        );
    }
    assert!(kills >= 20 && mixed > 0, "{kills} kills, {mixed} mixed");
    eprintln!("{kills} kills, {mixed} left a mixed batch before the next call");
}

/// A batch killed while another call runs, after that call's start found
/// nothing to put back: the call puts it back at its end, before it sweeps
/// the directory's stale temp files (the originals among them).
#[test]
fn a_batch_killed_during_another_call_is_put_back_at_its_end() {
    let (_t, root, state) = workspace();
    let r = next_call(&root, &state, "edit-while-killed");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(content(&root, "other.txt").as_deref(), Some("x = 2\n"));
    assert!(all_old(&root));
    assert_eq!(temps(&root), Vec::<String>::new());
    let warned = r["warnings"].as_array().map(|w| {
        w.iter()
            .any(|w| w.as_str().unwrap().contains("interrupted"))
    });
    assert_eq!(warned, Some(true), "{r}");
}

/// Killed after its intent was kept and before its first rename: nothing
/// to put back. The next call removes the temp files and the intent, and
/// says nothing.
#[test]
fn a_batch_killed_before_its_first_rename_leaves_nothing_behind() {
    let (_t, root, state) = workspace();
    killed_at(&root, &state, "rename-1");
    assert!(all_old(&root));
    let intents = || {
        fs::read_dir(state.join("intents"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    assert_eq!(intents(), 1);
    assert!(!temps(&root).is_empty());
    let r = next_call(&root, &state, "edit");
    assert_eq!(r["ok"], true, "{r}");
    assert!(all_old(&root));
    assert_eq!(temps(&root), Vec::<String>::new());
    assert_eq!(intents(), 0);
    assert!(r.get("warnings").is_none(), "{r}");
}

/// A dead batch whose file another process holds locked keeps its intent
/// for a later call; meanwhile a call writing in the same directory sweeps
/// stale temp files, and the batch's originals, set aside under temp names
/// and unlocked since their writer died, are not among them: once the lock
/// is let go, the next call still puts every file back.
#[test]
fn a_dead_batchs_originals_outlive_a_sweep_while_its_file_is_held() {
    use rustix::fs::{flock, FlockOperation};
    let (_t, root, state) = workspace();
    age_originals(&root);
    killed_at(&root, &state, "rename-3");
    assert_ne!(content(&root, &name(0)), Some(old(0)));
    let held = fs::File::open(root.join(name(0))).unwrap();
    flock(&held, FlockOperation::NonBlockingLockExclusive).unwrap();
    let r = next_call(&root, &state, "edit");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(content(&root, "other.txt").as_deref(), Some("x = 2\n"));
    drop(held);
    put_back_by_the_next_call(&root, &state);
}

/// A batch killed after another call looked for dead batches and before
/// that call's sweep lists the directory: the sweep reads the intents kept
/// when it is about to remove a temp file, so the batch's originals (an
/// hour old, unlocked) stay, and the next call puts every file back. The
/// sweep used the intents found before the batch began, and took them.
#[test]
fn a_batch_killed_just_before_a_sweep_keeps_its_originals() {
    let (_t, root, state) = workspace();
    age_originals(&root);
    let r = next_call(&root, &state, "edit-killed-before-sweep");
    assert_eq!(r["ok"], true, "{r}");
    assert_ne!(
        content(&root, &name(0)),
        Some(old(0)),
        "the kill landed elsewhere"
    );
    put_back_by_the_next_call(&root, &state);
}

/// A file of the dead batch that another program wrote in place after the
/// kill, keeping its size and putting its modification time back (as
/// `rsync --inplace -t` or `touch -r` do), is not the batch's to undo: its
/// change time tells, recorded by the writer just after each rename. The
/// updated file was put back over that change, and the created one
/// removed.
#[test]
fn a_file_rewritten_with_its_size_and_time_kept_keeps_its_change() {
    use std::os::unix::fs::FileExt;
    let (_t, root, state) = workspace();
    killed_at(&root, &state, "dirfsync-2");
    assert_eq!(content(&root, "made.txt").as_deref(), Some("made\n"));
    for (n, text) in [
        (name(0), "value 0 = NEW\n"),
        ("made.txt".to_string(), "MADE\n"),
    ] {
        let p = root.join(&n);
        let mtime = fs::metadata(&p).unwrap().modified().unwrap();
        // (Past the change time's tick, as a program run later would be.)
        std::thread::sleep(std::time::Duration::from_millis(20));
        let f = fs::File::options().write(true).open(&p).unwrap();
        assert_eq!(f.metadata().unwrap().len(), text.len() as u64, "{n}");
        f.write_all_at(text.as_bytes(), 0).unwrap();
        f.set_modified(mtime).unwrap();
    }
    let r = next_call(&root, &state, "edit");
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(content(&root, &name(0)).as_deref(), Some("value 0 = NEW\n"));
    assert_eq!(content(&root, "made.txt").as_deref(), Some("MADE\n"));
    for i in 1..FILES {
        assert_eq!(content(&root, &name(i)), Some(old(i)), "{i}");
    }
    assert_eq!(content(&root, "gone.txt").as_deref(), Some("to delete\n"));
    let warned = r["warnings"].to_string();
    assert!(
        warned.contains("f0.txt") && warned.contains("made.txt"),
        "{r}"
    );
}

/// The batch's files last written an hour ago: old enough for any sweep
/// to take their originals for stale temp files.
fn age_originals(root: &Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for i in 0..FILES {
        let f = fs::File::options()
            .write(true)
            .open(root.join(name(i)))
            .unwrap();
        f.set_modified(hour_ago).unwrap();
    }
}

/// The next call (a dry run of an edit of `other.txt`, made applicable
/// again) leaves the whole batch as it was before it, and no temp file.
fn put_back_by_the_next_call(root: &Path, state: &Path) {
    fs::write(root.join("other.txt"), "x = 1\n").unwrap();
    let r = next_call(root, state, "edit-dry");
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        all_old(root),
        "{:?} {r}",
        (0..FILES)
            .map(|i| content(root, &name(i)))
            .collect::<Vec<_>>()
    );
    assert_eq!(temps(root), Vec::<String>::new());
}
