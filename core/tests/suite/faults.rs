//! Faults at every I/O step, real full and read-only file systems, files that
//! change under an edit, size limits and panics: each gives a clear code, the
//! original bytes stay as they were and no temp file is left behind.
//!
//! Needs the `fault-injection` feature (`cargo test --all-features`).
#![cfg(all(unix, feature = "fault-injection"))]

use std::path::{Path, PathBuf};
use std::process::Command;

use patch_file_core::api as engine;
use patch_file_core::testing::dir::{self as fsys, fault, Step};
use serde_json::{json, Value};

const ORIGINAL: &str = "alpha\nbeta\ngamma\n";

fn setup() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("f.txt"), ORIGINAL).unwrap();
    (t, root)
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root })
}

fn patch(root: &Path, file: &str) -> Value {
    engine::patch_file(
        &json!({"file_path": file, "search_block": "beta", "replace_block": "BETA"}),
        Some(&opts(root)),
    )
}

fn temps_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| fsys::is_temp_name(n) || n.to_string_lossy().contains(".pft-"))
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

fn code(v: &Value) -> &str {
    v["code"].as_str().unwrap_or("<ok>")
}

/// One failing step: the code, the original bytes, no temp file.
fn fails_cleanly(step: Step, want: &str) {
    let (_t, root) = setup();
    fault::arm(step, 0);
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(r["ok"], false, "{step:?}: {r}");
    assert_eq!(code(&r), want, "{step:?}: {r}");
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        ORIGINAL,
        "{step:?}"
    );
    assert!(
        temps_in(&root).is_empty(),
        "{step:?}: {:?}",
        temps_in(&root)
    );
    // The next call works: no lock or state was left behind.
    assert_eq!(patch(&root, "f.txt")["ok"], true, "{step:?}");
}

#[test]
fn fault_at_open() {
    fails_cleanly(Step::Open, "FILE_READ_ERROR");
}

#[test]
fn fault_at_read() {
    fails_cleanly(Step::Read, "FILE_READ_ERROR");
}

#[test]
fn fault_at_temp_create() {
    fails_cleanly(Step::TempCreate, "FILE_WRITE_ERROR");
}

#[test]
fn fault_at_write() {
    fails_cleanly(Step::Write, "FILE_WRITE_ERROR");
}

#[test]
fn fault_at_fsync() {
    fails_cleanly(Step::Fsync, "FILE_WRITE_ERROR");
}

#[test]
fn fault_at_chmod() {
    fails_cleanly(Step::Chmod, "FILE_WRITE_ERROR");
}

#[test]
fn fault_at_rename() {
    fails_cleanly(Step::Rename, "FILE_WRITE_ERROR");
}

/// A directory fsync fails only after the rename: the edit is in place, so
/// the call succeeds and says that durability is unconfirmed.
#[test]
fn fault_at_dir_fsync_is_a_warning_on_success() {
    let (_t, root) = setup();
    fault::arm(Step::DirFsync, 0);
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(r["ok"], true, "{r}");
    let w = r["warnings"].as_array().expect("warnings");
    assert_eq!(w.len(), 1);
    assert!(w[0]
        .as_str()
        .unwrap()
        .contains("may not survive a power loss"));
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );
    assert!(temps_in(&root).is_empty());
    // Without a fault there is no warning.
    let r = engine::patch_file(
        &json!({"file_path": "f.txt", "search_block": "BETA", "replace_block": "beta"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true);
    assert!(r.get("warnings").is_none(), "{r}");
}

/// A batch whose second rename fails: the first file is restored.
#[test]
fn batch_rename_fault_rolls_back() {
    let (_t, root) = setup();
    std::fs::write(root.join("g.txt"), "beta two\n").unwrap();
    fault::arm(Step::Rename, 1);
    let r = engine::batch_patch_files(
        &json!({"files": [
            {"file_path": "f.txt", "search_block": "beta", "replace_block": "B1"},
            {"file_path": "g.txt", "search_block": "beta", "replace_block": "B2"},
        ]}),
        Some(&opts(&root)),
    );
    fault::disarm();
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(code(&r), "FILE_WRITE_ERROR");
    assert_eq!(r["rolled_back"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        ORIGINAL
    );
    assert_eq!(
        std::fs::read_to_string(root.join("g.txt")).unwrap(),
        "beta two\n"
    );
    assert!(temps_in(&root).is_empty(), "{:?}", temps_in(&root));
}

/// Every step of a write to a new file (writeFile) fails cleanly too: the
/// file does not appear.
#[test]
fn write_file_faults_leave_no_file() {
    for step in [Step::TempCreate, Step::Write, Step::Fsync, Step::Rename] {
        let (_t, root) = setup();
        fault::arm(step, 0);
        let r = engine::write_file(
            &json!({"file_path": "new.txt", "content": "hello\n"}),
            Some(&opts(&root)),
        );
        fault::disarm();
        assert_eq!(code(&r), "FILE_WRITE_ERROR", "{step:?}: {r}");
        assert!(!root.join("new.txt").exists(), "{step:?}");
        assert!(temps_in(&root).is_empty(), "{step:?}");
    }
}

// ---------------------------------------------------------------------------
// The file changes under the edit.

#[test]
fn file_deleted_between_read_and_write() {
    let (_t, root) = setup();
    let p = root.join("f.txt");
    fault::arm_hook(Step::TempCreate, 0, move || {
        std::fs::remove_file(&p).unwrap();
    });
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert!(
        !root.join("f.txt").exists(),
        "a deleted file must not come back"
    );
    assert!(temps_in(&root).is_empty());
}

/// Deleted after it was read, before the write checks it may replace it:
/// that check's "no such file" was answered as a read-only file
/// (`FILE_WRITE_ERROR`, "fix the cause") instead of `FILE_CHANGED`.
#[test]
fn file_deleted_before_the_write_is_prepared() {
    let (_t, root) = setup();
    let p = root.join("f.txt");
    fault::arm_hook(Step::Prepare, 0, move || {
        std::fs::remove_file(&p).unwrap();
    });
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert!(r["message"].as_str().unwrap().contains("deleted"), "{r}");
    assert!(!root.join("f.txt").exists());
    assert!(temps_in(&root).is_empty());
}

/// Another process renames a file of its own over the target after the
/// target was checked and locked, just before the first rename (no lock
/// stops a rename): `call` runs with that rename armed. The file the
/// commit moved aside is not the one checked: it is put back, the call
/// fails as `FILE_CHANGED`, their file stands at the name, whole, and no
/// temp file is left. (Before, their file was taken for the original and
/// unlinked, with `ok: true`.)
fn renamed_over_before_the_rename(call: impl FnOnce(&Path) -> Value) {
    let (t, root) = setup();
    let theirs = t.path().join("theirs.txt");
    std::fs::write(&theirs, "their new content\n").unwrap();
    let to = root.join("f.txt");
    fault::arm_hook(Step::Rename, 0, move || {
        std::fs::rename(&theirs, &to).unwrap();
    });
    let r = call(&root);
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("replaced by another process"),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "their new content\n"
    );
    assert!(temps_in(&root).is_empty(), "{:?}", temps_in(&root));
}

/// An edit: what the exchange displaced is exchanged back.
#[test]
fn a_file_renamed_over_the_target_just_before_the_exchange_is_kept() {
    renamed_over_before_the_rename(|root| patch(root, "f.txt"));
}

/// A deletion: what was set aside is renamed back.
#[test]
fn a_file_renamed_over_one_to_delete_is_kept() {
    renamed_over_before_the_rename(|root| {
        engine::apply_patch(
            &json!("*** Begin Patch\n*** Delete File: f.txt\n*** End Patch\n"),
            Some(&opts(root)),
        )
    });
}

#[test]
fn file_replaced_by_directory_between_read_and_write() {
    let (_t, root) = setup();
    let p = root.join("f.txt");
    fault::arm_hook(Step::TempCreate, 0, move || {
        std::fs::remove_file(&p).unwrap();
        std::fs::create_dir(&p).unwrap();
    });
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert!(root.join("f.txt").is_dir());
    assert!(temps_in(&root).is_empty());
    // And named directly, a directory is refused with its own code.
    assert_eq!(code(&patch(&root, "f.txt")), "TARGET_IS_DIRECTORY");
}

#[test]
fn file_rewritten_in_place_with_same_size_between_read_and_write() {
    // Same size, written within the same timestamp tick: only the byte
    // comparison can see it.
    let (_t, root) = setup();
    let p = root.join("f.txt");
    let meta = std::fs::metadata(&p).unwrap();
    fault::arm_hook(Step::TempCreate, 0, move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        f.write_all(b"ALPHA").unwrap();
        // Put the times back as they were, as a fast writer within one tick
        // would leave them.
        f.set_modified(meta.modified().unwrap()).unwrap();
    });
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "ALPHA\nbeta\ngamma\n"
    );
    assert!(temps_in(&root).is_empty());
}

#[test]
fn file_replaced_by_rename_between_read_and_write() {
    let (_t, root) = setup();
    let r2 = root.clone();
    fault::arm_hook(Step::TempCreate, 0, move || {
        std::fs::write(r2.join("other"), "someone else's\n").unwrap();
        std::fs::rename(r2.join("other"), r2.join("f.txt")).unwrap();
    });
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "someone else's\n"
    );
}

#[test]
fn new_file_created_by_someone_else_meanwhile() {
    let (_t, root) = setup();
    let p = root.join("new.txt");
    fault::arm_hook(Step::Rename, 0, move || {
        std::fs::write(&p, "theirs\n").unwrap();
    });
    let r = engine::write_file(
        &json!({"file_path": "new.txt", "content": "mine\n"}),
        Some(&opts(&root)),
    );
    fault::disarm();
    assert_eq!(code(&r), "FILE_CHANGED", "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("new.txt")).unwrap(),
        "theirs\n"
    );
    assert!(temps_in(&root).is_empty());
}

// ---------------------------------------------------------------------------
// Size limit.

#[test]
fn max_file_bytes_refuses_before_opening() {
    let (_t, root) = setup();
    std::fs::write(root.join("big.txt"), "beta ".repeat(1000)).unwrap();
    let touched = std::rc::Rc::new(std::cell::Cell::new(false));
    let (a, b) = (touched.clone(), touched.clone());
    fault::arm_hook(Step::Open, 0, move || a.set(true));
    fault::arm_hook(Step::Read, 0, move || b.set(true));
    let r = engine::patch_file(
        &json!({"file_path": "big.txt", "search_block": "x", "replace_block": "y"}),
        Some(&json!({"workspaceRoot": root, "maxFileBytes": 4999})),
    );
    fault::disarm();
    assert_eq!(code(&r), "FILE_TOO_LARGE", "{r}");
    assert!(r["message"].as_str().unwrap().contains("5000 bytes"));
    assert!(!touched.get(), "the file was opened or read");
    // At the limit it is read.
    let r = engine::patch_file(
        &json!({"file_path": "big.txt", "search_block": "beta beta beta beta beta ", "replace_block": "", "expected_replacements": 200}),
        Some(&json!({"workspaceRoot": root, "maxFileBytes": 5000})),
    );
    assert_eq!(r["ok"], true, "{r}");
    // readFile honours it too.
    let r = engine::read_file(
        &json!({"file_path": "f.txt"}),
        Some(&json!({"workspaceRoot": root, "maxFileBytes": 3})),
    );
    assert_eq!(code(&r), "FILE_TOO_LARGE", "{r}");
}

// ---------------------------------------------------------------------------
// Panics.

#[test]
fn guarded_turns_a_panic_into_internal_error() {
    let v = engine::guarded(|| panic!("boom {}", 42));
    assert_eq!(v["ok"], false);
    assert_eq!(v["code"], "INTERNAL_ERROR");
    assert!(v["message"].as_str().unwrap().contains("boom 42"));
    let v = engine::guarded(|| std::panic::panic_any(7u8));
    assert_eq!(v["code"], "INTERNAL_ERROR");
}

/// A panic deep inside each entry point (at a real I/O step) comes back as
/// `INTERNAL_ERROR`, writes nothing, and leaves no lock held.
#[test]
fn panic_inside_each_entry_point_is_caught() {
    let (_t, root) = setup();
    let o = opts(&root);
    type Call = Box<dyn Fn() -> Value>;
    let calls: Vec<(&str, Step, Call)> = vec![
        ("patchFile", Step::Read, {
            let r = root.clone();
            Box::new(move || patch(&r, "f.txt"))
        }),
        ("batchPatchFiles", Step::Write, {
            let o = o.clone();
            Box::new(move || {
                engine::batch_patch_files(
                    &json!({"files": [{"file_path": "f.txt", "search_block": "beta", "replace_block": "x"}]}),
                    Some(&o),
                )
            })
        }),
        ("writeFile", Step::Rename, {
            let o = o.clone();
            Box::new(move || {
                engine::write_file(&json!({"file_path": "f.txt", "content": "x"}), Some(&o))
            })
        }),
        ("readFile", Step::Open, {
            let o = o.clone();
            Box::new(move || engine::read_file(&json!({"file_path": "f.txt"}), Some(&o)))
        }),
    ];
    for (name, step, call) in &calls {
        fault::arm_panic(*step, 0);
        let v = call();
        fault::disarm();
        assert_eq!(v["ok"], false, "{name}: {v}");
        assert_eq!(code(&v), "INTERNAL_ERROR", "{name}: {v}");
        assert_eq!(
            std::fs::read_to_string(root.join("f.txt")).unwrap(),
            ORIGINAL,
            "{name}"
        );
        assert!(temps_in(&root).is_empty(), "{name}: {:?}", temps_in(&root));
    }
    // applyDryRun: preview, then panic while applying.
    let d = engine::patch_file(
        &json!({"file_path": "f.txt", "search_block": "beta", "replace_block": "x", "dry_run": true}),
        Some(&o),
    );
    let id = d["run_id"].as_str().expect("run_id").to_string();
    fault::arm_panic(Step::Rename, 0);
    let v = engine::apply_dry_run(&json!({ "run_id": id }), Some(&o));
    fault::disarm();
    assert_eq!(code(&v), "INTERNAL_ERROR", "{v}");
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        ORIGINAL
    );
    // Nothing stays locked: every entry point works afterwards.
    for (name, _, call) in &calls {
        std::fs::write(root.join("f.txt"), ORIGINAL).unwrap();
        assert_eq!(call()["ok"], true, "{name} after the panics");
    }
}

// ---------------------------------------------------------------------------
// Real file systems: full, read-only, immutable.

/// A mount made for one test, unmounted on drop.
struct Mount(PathBuf);

impl Mount {
    fn run(args: &[&str]) -> bool {
        Command::new(args[0])
            .args(&args[1..])
            .output()
            .is_ok_and(|o| o.status.success())
    }

    fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        std::fs::create_dir_all(dir).unwrap();
        let d = dir.to_str().unwrap();
        Self::run(&[
            "mount",
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size}"),
            "tmpfs",
            d,
        ])
        .then(|| Mount(dir.to_path_buf()))
    }

    fn bind_read_only(dir: &Path) -> Option<Mount> {
        let d = dir.to_str().unwrap();
        if !Self::run(&["mount", "--bind", d, d]) {
            return None;
        }
        let m = Mount(dir.to_path_buf());
        Self::run(&["mount", "-o", "remount,ro,bind", d]).then_some(m)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        Self::run(&["umount", self.0.to_str().unwrap()]);
    }
}

#[test]
fn full_disk_gives_file_write_error_and_keeps_the_original() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("small");
    let Some(_m) = Mount::tmpfs(&root, "64k") else {
        eprintln!("SKIP full_disk: mounting a tmpfs is not permitted here");
        return;
    };
    // 40 KiB of text; the edit doubles it, which cannot fit in 64 KiB.
    let original = "0123456789abcdef\n".repeat(2400);
    std::fs::write(root.join("f.txt"), &original).unwrap();
    let r = engine::patch_file(
        &json!({"file_path": "f.txt", "search_block": "0123456789abcdef\n", "replace_block": "0123456789abcdef0123456789abcdef\n", "replace_all": true}),
        Some(&opts(&root)),
    );
    assert_eq!(code(&r), "FILE_WRITE_ERROR", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("No space left"),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        original
    );
    assert!(temps_in(&root).is_empty(), "{:?}", temps_in(&root));
    // A small edit still fits afterwards: the failed attempt freed its space.
    let r = engine::patch_file(
        &json!({"file_path": "f.txt", "search_block": "0123456789abcdef\n0123456789abcdef\n", "replace_block": "x\n", "expected_replacements": 1200}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn read_only_mount_gives_file_write_error() {
    let (_t, root) = setup();
    let Some(_m) = Mount::bind_read_only(&root) else {
        eprintln!("SKIP read_only_mount: bind mounts are not permitted here");
        return;
    };
    let r = patch(&root, "f.txt");
    assert_eq!(code(&r), "FILE_WRITE_ERROR", "{r}");
    assert!(r["message"].as_str().unwrap().contains("read-only"), "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        ORIGINAL
    );
    let r = engine::write_file(
        &json!({"file_path": "new.txt", "content": "x"}),
        Some(&opts(&root)),
    );
    assert_eq!(code(&r), "FILE_WRITE_ERROR", "{r}");
    assert!(!root.join("new.txt").exists());
}

#[test]
fn immutable_file_gives_file_write_error() {
    let (_t, root) = setup();
    let p = root.join("f.txt");
    if !Mount::run(&["chattr", "+i", p.to_str().unwrap()]) {
        eprintln!("SKIP immutable_file: chattr +i is not permitted here");
        return;
    }
    let r = patch(&root, "f.txt");
    Mount::run(&["chattr", "-i", p.to_str().unwrap()]);
    assert_eq!(code(&r), "FILE_WRITE_ERROR", "{r}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), ORIGINAL);
    assert!(temps_in(&root).is_empty());
}

/// Permission bits: a file without write permission is not rewritten
/// behind the user's back (for root, bits do not restrict writes, so this
/// is checked as the kernel's `access(W_OK)` answers for the caller).
#[test]
fn read_only_permission_bits_follow_access() {
    use std::os::unix::fs::PermissionsExt;
    let (_t, root) = setup();
    let p = root.join("f.txt");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let writable = rustix::fs::access(&p, rustix::fs::Access::WRITE_OK).is_ok();
    let r = patch(&root, "f.txt");
    if writable {
        // Root: the edit goes through and keeps the mode.
        assert_eq!(r["ok"], true, "{r}");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o444);
    } else {
        assert_eq!(code(&r), "FILE_WRITE_ERROR", "{r}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), ORIGINAL);
    }
    assert!(temps_in(&root).is_empty());
}

/// The file is swapped for a FIFO, or for a link to an outside file, after
/// it was resolved and just before it is opened: the open neither hangs nor
/// follows the link.
#[test]
fn file_swapped_for_fifo_or_link_just_before_open() {
    let (t, root) = setup();
    let p = root.join("f.txt");
    let q = p.clone();
    fault::arm_hook(Step::Open, 0, move || {
        std::fs::remove_file(&q).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            q.as_path(),
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .unwrap();
    });
    let r = patch(&root, "f.txt");
    fault::disarm();
    assert_eq!(code(&r), "FILE_READ_ERROR", "{r}");
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("not a regular file"));

    std::fs::remove_file(&p).unwrap();
    std::fs::write(&p, ORIGINAL).unwrap();
    let outside = t.path().join("outside.txt");
    std::fs::write(&outside, "beta outside\n").unwrap();
    let (q, o) = (p.clone(), outside.clone());
    fault::arm_hook(Step::Open, 0, move || {
        std::fs::remove_file(&q).unwrap();
        std::os::unix::fs::symlink(&o, &q).unwrap();
    });
    let r = engine::read_file(&json!({"file_path": "f.txt"}), Some(&opts(&root)));
    fault::disarm();
    assert_eq!(code(&r), "FILE_READ_ERROR", "{r}");
    assert!(!r.to_string().contains("beta outside"));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "beta outside\n");
}

/// Another process writes the file right after an edit's rename: the
/// SEARCH/REPLACE read-back sees bytes that are not the ones written, and no
/// block is called verified (even one whose replacement happens to be in
/// the other writer's bytes).
#[test]
fn edit_blocks_read_back_of_another_writers_bytes_verifies_nothing() {
    let (_t, root) = setup();
    let p = root.join("f.txt");
    fault::arm_hook(Step::DirFsync, 0, move || {
        std::fs::write(&p, "alpha\nBETA\ngamma\nsomeone else's line\n").unwrap();
    });
    let blocks = "f.txt\n<<<<<<< SEARCH\nbeta\n=======\nBETA\n>>>>>>> REPLACE\n";
    let r = engine::apply_edit_blocks(&json!(blocks), Some(&opts(&root)));
    fault::disarm();
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["files"][0]["read_back_matches"], false, "{r}");
    assert_eq!(r["files"][0]["blocks"][0]["verified"], false, "{r}");
    assert_eq!(r["verified"], false, "{r}");
    // Undisturbed, the same edit verifies.
    std::fs::write(root.join("f.txt"), ORIGINAL).unwrap();
    let r = engine::apply_edit_blocks(&json!(blocks), Some(&opts(&root)));
    assert_eq!(r["files"][0]["read_back_matches"], true, "{r}");
    assert_eq!(r["verified"], true, "{r}");
}
