//! Recovery from in-place writes that died, tried as an unlucky user and as
//! an attacker would: a writer killed with SIGKILL half-way through, the
//! file then read, dry-run, refused, written; the file replaced meanwhile
//! and its inode number reused by another file, here or in another
//! workspace; copies planted beside a file by another real user; a record
//! in the private state that another user owns.
//!
//! The writer is this test binary run again as a child
//! (`PFT_RECOVERY_CHILD`), which arms a hook at the in-place write's own
//! write: the hook writes the first 8 KiB of the new content (as the
//! kernel would have when the kill landed) and SIGKILLs the process.
#![cfg(all(target_os = "linux", feature = "fault-injection"))]

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use patch_file_tool::api;
use serde_json::{json, Value};

const CHILD: &str = "PFT_RECOVERY_CHILD";

/// The file before the interrupted write: 4 blocks and a bit.
fn old_text() -> String {
    (0..300)
        .map(|i| format!("line {i:04} of the file as it was\n"))
        .collect()
}

/// What the interrupted write was writing.
fn new_text() -> String {
    old_text().to_uppercase()
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "hardLinks": "keep" })
}

/// The child: writes `new_text()` over `f.txt` in place (it has a second
/// link) and is killed half-way.
#[test]
fn child_in_place_writer() {
    let Some(root) = std::env::var_os(CHILD) else {
        return;
    };
    let root = PathBuf::from(root);
    let file = root.join("f.txt");
    // Write #0 keeps the record; write #1 is the file's own.
    patch_file_tool::testing::dir::fault::arm_hook(
        patch_file_tool::testing::dir::Step::Write,
        1,
        move || {
            use std::os::unix::fs::FileExt;
            let f = fs::OpenOptions::new().write(true).open(&file).unwrap();
            f.write_all_at(&new_text().as_bytes()[..8192], 0).unwrap();
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL)
                .unwrap();
        },
    );
    let r = api::write_file(
        &json!({"file_path": "f.txt", "content": new_text()}),
        Some(&opts(&root)),
    );
    panic!("the writer was not killed: {r}");
}

/// A workspace whose `f.txt` (hard-linked as `g.txt`, so written in place)
/// was torn by a writer killed with SIGKILL.
/// Records are keyed by inode number, which the file system reuses across
/// these tests' directories: they run one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static S: std::sync::Mutex<()> = std::sync::Mutex::new(());
    S.lock().unwrap_or_else(|p| p.into_inner())
}

fn torn_workspace() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("f.txt"), old_text()).unwrap();
    fs::hard_link(root.join("f.txt"), root.join("g.txt")).unwrap();
    let st = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_in_place_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &root)
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        st.status.signal(),
        Some(9),
        "the writer was not killed: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let torn = fs::read_to_string(root.join("f.txt")).unwrap();
    assert!(
        torn != old_text() && torn != new_text(),
        "the file is not torn"
    );
    assert!(torn.starts_with(&new_text()[..8192]) && torn.ends_with(&old_text()[8192..]));
    (t, base)
}

fn sha(b: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

fn records() -> Vec<PathBuf> {
    let d = PathBuf::from(std::env::var_os("PATCH_FILE_STATE_DIR").unwrap()).join("recovery");
    fs::read_dir(d)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

fn record_of(p: &Path) -> PathBuf {
    let m = fs::metadata(p).unwrap();
    PathBuf::from(std::env::var_os("PATCH_FILE_STATE_DIR").unwrap())
        .join("recovery")
        .join(format!("{}-{}", m.dev(), m.ino()))
}

/// After the kill: a read, a dry run and a refused edit write nothing and
/// see the content from before the interrupted write (with a note); the
/// next real write puts that content back, then applies its edit.
#[test]
fn a_killed_in_place_write_is_read_as_before_and_restored_by_the_next_write() {
    let _one = serial();
    let (_t, base) = torn_workspace();
    let root = base.join("ws");
    let f = root.join("f.txt");
    let torn = fs::read(&f).unwrap();
    assert!(record_of(&f).exists(), "no record was kept");
    let o = opts(&root);

    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["content"], old_text(), "readFile showed the torn bytes");
    assert_eq!(r["sha256"], sha(old_text().as_bytes()));
    let w = r["warning"].as_str().unwrap_or_default();
    assert!(w.contains("interrupted") && w.contains("torn"), "{r}");

    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "line 0299", "replace_block": "LAST", "dry_run": true}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["warnings"][0].as_str().unwrap().contains("interrupted"),
        "{r}"
    );
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "never there", "replace_block": "x"}),
        Some(&o),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(
        fs::read(&f).unwrap(),
        torn,
        "a read, dry run or refused edit wrote"
    );
    assert!(record_of(&f).exists());

    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "line 0299", "replace_block": "LAST",
                "expected_sha256": sha(old_text().as_bytes())}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["warnings"][0].as_str().unwrap().contains("restored"),
        "{r}"
    );
    let want = old_text().replace("line 0299", "LAST");
    assert_eq!(fs::read_to_string(&f).unwrap(), want);
    assert_eq!(
        fs::read_to_string(root.join("g.txt")).unwrap(),
        want,
        "links kept"
    );
    assert!(
        !record_of(&f).exists(),
        "the record stayed: {:?}",
        records()
    );
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    assert!(r.get("warning").is_none(), "{r}");
}

/// After the kill the user restores the file another way (a new file at the
/// same name); ext4 hands the new file the same inode number. Then the
/// inode is freed again and reused by a 17-byte file in another workspace.
/// Neither is ever given the old content; the record is discarded by the
/// next write.
#[test]
fn a_record_is_never_applied_to_a_file_that_reused_the_inode() {
    let _one = serial();
    let (_t, base) = torn_workspace();
    let root = base.join("ws");
    let f = root.join("f.txt");
    let ino = fs::metadata(&f).unwrap().ino();
    fs::remove_file(&f).unwrap();
    fs::remove_file(root.join("g.txt")).unwrap();
    fs::write(&f, "restored by hand\n").unwrap();
    if fs::metadata(&f).unwrap().ino() != ino {
        eprintln!("SKIP: the file system did not reuse the inode number");
        return;
    }
    let o = json!({ "workspaceRoot": root });
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "absent", "replace_block": "x", "dry_run": true}),
        Some(&o),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    assert_eq!(r["content"], "restored by hand\n", "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "restored by hand\n");

    // The same inode number, now in another workspace.
    fs::remove_file(&f).unwrap();
    let other = base.join("other");
    fs::create_dir(&other).unwrap();
    let mut reused = None;
    for i in 0..200 {
        let p = other.join(format!("n{i}.txt"));
        fs::write(&p, "seventeen bytes!\n").unwrap();
        if fs::metadata(&p).unwrap().ino() == ino {
            reused = Some(p);
            break;
        }
    }
    let Some(p) = reused else {
        eprintln!("SKIP: the inode number was not reused in another directory");
        return;
    };
    let name = p.file_name().unwrap().to_str().unwrap();
    let o = json!({ "workspaceRoot": other });
    let r = api::patch_file(
        &json!({"file_path": name, "search_block": "absent", "replace_block": "x", "dry_run": true}),
        Some(&o),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(fs::read_to_string(&p).unwrap(), "seventeen bytes!\n");
    let r = api::patch_file(
        &json!({"file_path": name, "search_block": "seventeen", "replace_block": "17"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(&p).unwrap(), "17 bytes!\n");
    assert!(r.get("warnings").is_none(), "{r}");
    assert!(!record_of(&p).exists(), "the stale record stayed");
}

/// A record that another user owns is not the engine's: it is never used,
/// even though it names the file and would restore it. A write that would
/// need its place refuses, naming it, and changes nothing.
#[test]
fn a_record_owned_by_another_user_is_never_used() {
    let _one = serial();
    if !rustix::process::geteuid().is_root() {
        eprintln!("SKIP: needs root to give a record to another user");
        return;
    }
    let (_t, base) = torn_workspace();
    let root = base.join("ws");
    let f = root.join("f.txt");
    let torn = fs::read(&f).unwrap();
    let rec = record_of(&f);
    std::os::unix::fs::chown(&rec, Some(65534), None).unwrap();
    let o = opts(&root);
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    assert_eq!(r["content"].as_str().unwrap().as_bytes(), torn, "{r}");
    assert!(r.get("warning").is_none(), "{r}");
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "LINE 0000", "replace_block": "line zero"}),
        Some(&o),
    );
    assert_eq!(r["code"], "FILE_WRITE_ERROR", "{r}");
    assert!(r["message"].as_str().unwrap().contains("uid 65534"), "{r}");
    assert_eq!(fs::read(&f).unwrap(), torn, "the record was applied");
    fs::remove_file(&rec).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "LINE 0000", "replace_block": "line zero"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
}

// ---------------------------------------------------------------------------
// A second real user

/// A user created for the test (`useradd`), removed when dropped.
struct User {
    name: String,
    uid: u32,
    gid: u32,
}

impl User {
    fn create() -> Option<User> {
        if !rustix::process::geteuid().is_root() {
            eprintln!("SKIP: needs root to create a second user");
            return None;
        }
        let name = format!("pftatk{}", std::process::id() % 100_000);
        // A user left by a run that was killed before it could remove it.
        let _ = Command::new("userdel").arg(&name).output();
        let ok = Command::new("useradd")
            .args(["-M", "-N", "-s", "/bin/sh", &name])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIP: useradd is not available");
            return None;
        }
        let id = |flag: &str| -> u32 {
            let o = Command::new("id").args([flag, &name]).output().unwrap();
            String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
        };
        Some(User {
            uid: id("-u"),
            gid: id("-g"),
            name,
        })
    }

    /// Runs `sh -c script` as this user.
    fn sh(&self, script: &str) {
        let st = Command::new("setpriv")
            .args([
                &format!("--reuid={}", self.uid),
                &format!("--regid={}", self.gid),
                "--clear-groups",
                "sh",
                "-c",
                script,
            ])
            .status()
            .or_else(|_| {
                Command::new("runuser")
                    .args(["-u", &self.name, "--", "sh", "-c", script])
                    .status()
            })
            .unwrap();
        assert!(st.success(), "`{script}` failed as {}", self.name);
    }
}

impl Drop for User {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).status();
    }
}

/// Another user, who may write the shared sticky directory but not the
/// victim's file, plants a copy in the format older versions kept beside a
/// file, naming the victim's device and inode (public through `stat`), and
/// the same beside a workspace file hard-linked to a file outside. The
/// victim's read, dry run, refused edit and real edit never use it.
#[test]
fn a_copy_planted_by_another_user_is_never_used() {
    let _one = serial();
    let Some(atk) = User::create() else { return };
    let t = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(t.path()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&base, fs::Permissions::from_mode(0o755)).unwrap();
    let shared = base.join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = shared.join("config.txt");
    fs::write(&victim, "owner's settings\n").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o644)).unwrap();
    let outside = base.join("outside.txt");
    fs::write(&outside, "outside\n").unwrap();
    fs::hard_link(&outside, shared.join("linked.txt")).unwrap();

    let planted = "planted by the attacker\n";
    for name in ["config.txt", "linked.txt"] {
        let m = fs::metadata(shared.join(name)).unwrap();
        let header = format!(
            "PFT-BACKUP 1 {} {} {} {}",
            m.dev(),
            m.ino(),
            "0".repeat(64),
            sha(planted.as_bytes())
        );
        atk.sh(&format!(
            "printf '%s\\n%s' '{header}' '{planted}' > '{}'",
            shared.join(format!(".{name}.pft-backup")).display()
        ));
    }
    // The attacker could not write the file itself.
    let o = json!({ "workspaceRoot": shared });
    for name in ["config.txt", "linked.txt"] {
        let r = api::read_file(&json!({"file_path": name}), Some(&o));
        assert!(!r["content"].as_str().unwrap().contains("attacker"), "{r}");
        let r = api::patch_file(
            &json!({"file_path": name, "search_block": "absent", "replace_block": "x", "dry_run": true}),
            Some(&o),
        );
        assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
        let r = api::patch_file(
            &json!({"file_path": name, "search_block": "absent", "replace_block": "x"}),
            Some(&o),
        );
        assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "owner's settings\n");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "outside\n");
    let r = api::patch_file(
        &json!({"file_path": "config.txt", "search_block": "owner's", "replace_block": "the owner's"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        fs::read_to_string(&victim).unwrap(),
        "the owner's settings\n"
    );
    // Nothing of the attacker's was removed either.
    assert!(shared.join(".config.txt.pft-backup").exists());
}
