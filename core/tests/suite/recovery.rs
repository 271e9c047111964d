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

use patch_file_core::api;
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
    patch_file_core::testing::dir::fault::arm_hook(
        patch_file_core::testing::dir::Step::Write,
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

/// `flock(1)` holding an exclusive lock on `path` for 700 ms, in another
/// process; returned once the lock is taken.
fn held_by_flock(path: &Path) -> std::process::Child {
    let mut c = Command::new("flock")
        .args(["-x", path.to_str().unwrap(), "sleep", "0.7"])
        .spawn()
        .unwrap();
    let probe = fs::File::open(path).unwrap();
    loop {
        use rustix::fs::FlockOperation as Op;
        match rustix::fs::flock(&probe, Op::NonBlockingLockShared) {
            Ok(()) => {
                rustix::fs::flock(&probe, Op::Unlock).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(_) => break,
        }
        assert!(c.try_wait().unwrap().is_none(), "flock(1) ended early");
    }
    c
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
            &crate::common::test_name(module_path!(), "child_in_place_writer"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &root)
        .output()
        .unwrap();
    crate::common::assert_killed(&st);
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
    // Removed however the test ends: left in the shared test state, it
    // would stand for whichever file of a later run reuses the inode.
    struct Gone<'a>(&'a Path);
    impl Drop for Gone<'_> {
        fn drop(&mut self) {
            let _ = fs::remove_file(self.0);
        }
    }
    let _gone = Gone(&rec);
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

// ---------------------------------------------------------------------------
// Contention: records and files held by other processes

/// Another process holds the torn file's record for a moment (as a
/// concurrent reader of another engine process does): a read and an edit
/// wait for it and see the content from before the interrupted write; the
/// edit restores that content first. A locked record is never "no record":
/// the torn bytes are neither answered as the file nor written over.
#[test]
fn a_record_held_by_another_process_is_waited_for_never_read_as_absent() {
    let _one = serial();
    if Command::new("flock").arg("--version").output().is_err() {
        eprintln!("SKIP: no flock(1) to hold a lock from another process");
        return;
    }
    let (_t, base) = torn_workspace();
    let root = base.join("ws");
    let f = root.join("f.txt");
    let rec = record_of(&f);
    let o = opts(&root);
    // flock(1) holds the record for 700 ms, in another process.
    let hold = || held_by_flock(&rec);
    let mut c = hold();
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    c.wait().unwrap();
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["content"], old_text(), "the torn bytes were answered");
    assert!(
        r["warning"].as_str().unwrap().contains("interrupted"),
        "{r}"
    );

    let mut c = hold();
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "line 0007 of the file as it was", "replace_block": "line seven"}),
        Some(&o),
    );
    c.wait().unwrap();
    assert_eq!(r["ok"], true, "{r}");
    let want = old_text().replace("line 0007 of the file as it was", "line seven");
    assert_eq!(
        fs::read_to_string(&f).unwrap(),
        want,
        "the edit was not made on the restored content"
    );
    assert!(!rec.exists(), "the record outlived the restore");
}

/// Roles of the contention stress's child processes.
const STRESS: &str = "PFT_RECOVERY_STRESS";

/// A version of the stress file: every line names the version, so a file
/// holding two versions' lines is torn, whatever its length.
fn version_text(v: u32) -> String {
    (0..600)
        .map(|i| format!("v{v:04} line {i:04} a\n"))
        .collect()
}

/// `Some(version)` when `text` is one whole version (an editor may have
/// flipped some lines' last letter), `None` when it mixes versions.
fn whole_version(text: &str) -> Option<u32> {
    let mut v = None;
    let mut n = 0;
    for (i, l) in text.lines().enumerate() {
        let this: u32 = l.get(1..5)?.parse().ok()?;
        let ok = l.len() == 17
            && &l[5..11] == " line "
            && l[11..15] == format!("{i:04}")
            && matches!(&l[15..], " a" | " b");
        if !ok || *v.get_or_insert(this) != this {
            return None;
        }
        n += 1;
    }
    (n == 600).then_some(v?)
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// A child of the stress: `writer` rewrites the file in place with new
/// versions, pausing half-way through each write (the first block already
/// written) so that kills land there; `reader` reads it; `editor` flips a
/// line it read. Any answer `ok: true` whose content is not one whole
/// version is a violation, appended to the file `out`.
#[test]
fn stress_child() {
    let Ok(spec) = std::env::var(STRESS) else {
        return;
    };
    let mut it = spec.splitn(4, ':');
    let (role, seed, out, root) = (
        it.next().unwrap().to_string(),
        it.next().unwrap().parse::<u64>().unwrap(),
        PathBuf::from(it.next().unwrap()),
        PathBuf::from(it.next().unwrap()),
    );
    let o = opts(&root);
    let file = root.join("f.txt");
    let mut rng = seed | 1;
    let violation = |what: String| {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&out)
            .unwrap();
        writeln!(f, "{what}").unwrap();
    };
    let read = |o: &Value| {
        let r = api::read_file(&json!({"file_path": "f.txt"}), Some(o));
        if r["ok"] == true {
            let c = r["content"].as_str().unwrap().to_string();
            if whole_version(&c).is_none() {
                violation(format!(
                    "{role} read torn content ok: true (warning: {})",
                    r["warning"]
                ));
            }
            return Some(c);
        }
        None
    };
    loop {
        match role.as_str() {
            "writer" => {
                let v = (xorshift(&mut rng) % 9000) as u32 + 1;
                let text = version_text(v);
                let pause = xorshift(&mut rng) % 12;
                let (file, head) = (file.clone(), text.as_bytes()[..4096].to_vec());
                patch_file_core::testing::dir::fault::disarm();
                patch_file_core::testing::dir::fault::arm_hook(
                    patch_file_core::testing::dir::Step::Write,
                    1,
                    move || {
                        use std::os::unix::fs::FileExt;
                        let f = fs::OpenOptions::new().write(true).open(&file).unwrap();
                        f.write_all_at(&head, 0).unwrap();
                        std::thread::sleep(std::time::Duration::from_millis(pause));
                    },
                );
                let _ = api::write_file(&json!({"file_path": "f.txt", "content": text}), Some(&o));
            }
            "reader" => {
                read(&o);
            }
            _ => {
                let Some(c) = read(&o) else { continue };
                let Some(line) = c.lines().nth(300) else {
                    continue;
                };
                let flipped = match line.strip_suffix('a') {
                    Some(head) => format!("{head}b"),
                    None => format!("{}a", &line[..line.len() - 1]),
                };
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": line, "replace_block": flipped}),
                    Some(&o),
                );
            }
        }
    }
}

/// In-place writers killed at random points race readers and an editor in
/// other processes, on one file: nothing torn is ever answered `ok: true`
/// as the file's content, and nothing torn is ever written over — after
/// the last kill the file reads, and is written, as one whole version.
#[test]
fn killed_in_place_writers_racing_readers_and_editors_never_leak_or_keep_a_torn_file() {
    let _one = serial();
    use std::os::unix::process::ExitStatusExt;
    let t = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    fs::create_dir(&root).unwrap();
    let f = root.join("f.txt");
    fs::write(&f, version_text(0)).unwrap();
    fs::hard_link(&f, root.join("g.txt")).unwrap();
    let out = base.join("violations.txt");
    let spawn = |role: &str, seed: u64| {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &crate::common::test_name(module_path!(), "stress_child"),
                "--nocapture",
                "--test-threads=1",
            ])
            .env(
                STRESS,
                format!("{role}:{seed}:{}:{}", out.display(), root.display()),
            )
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut seed = 0x5eed_0029u64;
    let mut writers: Vec<_> = (0..2).map(|i| spawn("writer", 11 + i)).collect();
    let mut others = vec![
        spawn("reader", 21),
        spawn("reader", 22),
        spawn("editor", 31),
    ];
    let (mut kills, mut torn_left) = (0, 0);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(6);
    while std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(
            5 + xorshift(&mut seed) % 40,
        ));
        let k = (xorshift(&mut seed) % writers.len() as u64) as usize;
        writers[k].kill().unwrap();
        let st = writers[k].wait().unwrap();
        assert_eq!(st.signal(), Some(9), "a writer ended by itself");
        kills += 1;
        if record_of(&f).exists()
            && whole_version(&fs::read_to_string(&f).unwrap_or_default()).is_none()
        {
            torn_left += 1;
        }
        writers[k] = spawn("writer", xorshift(&mut seed));
    }
    for mut c in writers.into_iter().chain(others.drain(..)) {
        let _ = c.kill();
        let _ = c.wait();
    }
    let violations = fs::read_to_string(&out).unwrap_or_default();
    assert!(
        violations.is_empty(),
        "{}",
        violations.lines().take(5).collect::<Vec<_>>().join("\n")
    );
    assert!(
        kills >= 40 && torn_left > 0,
        "the stress tore too few writes ({kills} kills, {torn_left} torn)"
    );
    // After the last kill: one whole version, from the bytes or the record.
    let o = opts(&root);
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&o));
    let content = r["content"].as_str().unwrap_or_default().to_string();
    assert!(
        whole_version(&content).is_some(),
        "the file was left torn: {r}"
    );
    let raw = fs::read_to_string(&f).unwrap_or_default();
    if whole_version(&raw).is_none() {
        assert!(
            r["warning"].as_str().unwrap_or("").contains("interrupted"),
            "{r}"
        );
    }
    let r = api::write_file(
        &json!({"file_path": "f.txt", "content": version_text(9999)}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), version_text(9999));
    assert!(!record_of(&f).exists());
    eprintln!("{kills} kills, {torn_left} left a torn file with its record");
}

/// Undo of a file another process holds locked (`flock`) for a moment:
/// busy, not changed. It answered `FILE_CHANGED` ("put them back by hand")
/// while `history` said the entry was undoable; now it answers
/// `FILE_LOCKED` (which the JS API waits on), and undoes once it is free.
#[test]
fn undo_of_a_locked_file_is_busy_not_changed() {
    let _one = serial();
    if Command::new("flock").arg("--version").output().is_err() {
        eprintln!("SKIP: no flock(1) to hold a lock from another process");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let f = root.join("f.txt");
    fs::write(&f, "hello\n").unwrap();
    let o = json!({ "workspaceRoot": root, "lockWaitMs": 0 });
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "hello", "replace_block": "HELLO"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    let mut c = held_by_flock(&f);
    // As the JS API calls it: locks fail at once, and it calls again.
    let busy = api::run_nonblocking(api::EntryPoint::Undo, &json!({}), Some(&o));
    let held = c.try_wait().unwrap().is_none();
    c.wait().unwrap();
    assert_ne!(busy["code"], "FILE_CHANGED", "{busy}");
    if busy["ok"] != true {
        assert!(held, "the lock was gone before the answer: {busy}");
        assert_eq!(busy["code"], "FILE_LOCKED", "{busy}");
        assert_eq!(fs::read_to_string(&f).unwrap(), "HELLO\n");
        let r = api::undo(&json!({}), Some(&o));
        assert_eq!(r["ok"], true, "{r}");
    }
    assert_eq!(fs::read_to_string(&f).unwrap(), "hello\n");
}

/// Undo under a `maxFileBytes` smaller than the content it would write
/// back: a limit of the call (`FILE_TOO_LARGE`, raise it), not a damaged
/// journal entry "never acted on"; with the default limit it undoes.
#[test]
fn undo_over_the_calls_size_limit_is_too_large_not_damaged() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let f = root.join("f.txt");
    fs::write(&f, "hello world\n").unwrap();
    let o = json!({ "workspaceRoot": root });
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search_block": "hello", "replace_block": "HELLO"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    let small = json!({ "workspaceRoot": root, "maxFileBytes": 5 });
    let r = api::undo(&json!({}), Some(&small));
    assert_eq!(r["code"], "FILE_TOO_LARGE", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("maxFileBytes"),
        "{r}"
    );
    assert_eq!(fs::read_to_string(&f).unwrap(), "HELLO world\n");
    let r = api::undo(&json!({}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "hello world\n");
}
