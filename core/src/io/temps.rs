//! Temp files the engine creates beside the files it writes, and the proof
//! that one was created by the engine.
//!
//! A commit writes its new content to a temp file in the target's
//! directory and renames it into place; a crash leaves the temp file
//! behind, and a later write in that directory sweeps it
//! ([`crate::io::commit::clean_stale_temps`]). A name alone proves nothing —
//! a user may well keep a file called `.notes.pft-0123456789abcdef.tmp` —
//! so the name carries a tag only the engine can make:
//!
//! `.<name>.pft-<16 hex random><16 hex tag>.tmp`
//!
//! where the tag is an HMAC-SHA256 (cut to 64 bits) keyed by a per-user
//! secret kept in the private state (`<state>/temp-key`, 32 random bytes,
//! created once, 0600, read through [`Private`]), over the directory's
//! identity (device and inode), the target's name and the random part. The
//! sweep removes a file only when its tag verifies, it belongs to the user
//! running the engine, it is a regular file, and nobody holds its lock: a
//! file the user named like a temp file, one copied from another directory,
//! or another user's, is never removed. Making the tag costs two SHA-256
//! blocks per temp file and no I/O (the key is read once per process).
//!
//! Without a usable state directory there is no key: temp names then carry
//! a random tag, which no sweep accepts, so such a leftover (only a crash
//! leaves one) stays until removed by hand.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::io::dir::{check_fault, Dir, Kind, Meta, Step, TEMP_MARK, TEMP_SUFFIX};
use crate::io::state::Private;

/// Name of the key in the private state.
const KEY_FILE: &str = "temp-key";
type Key = [u8; 32];

/// The effective user id (0 off Unix).
fn euid() -> u32 {
    #[cfg(unix)]
    {
        rustix::process::geteuid().as_raw()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// This user's key, read (or created) once per state directory and user.
fn key() -> Option<Key> {
    type Keys = HashMap<(PathBuf, u32), Option<Key>>;
    static KEYS: OnceLock<Mutex<Keys>> = OnceLock::new();
    let path = crate::io::state::state_path()?;
    let at = (path, euid());
    let mut keys = KEYS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(k) = keys.get(&at) {
        return *k;
    }
    let k = load_key().ok();
    keys.insert(at, k);
    k
}

fn read_key(f: File) -> io::Result<Key> {
    let mut k = Key::default();
    let mut rest = Vec::new();
    (&f).read_exact(&mut k)?;
    (&f).read_to_end(&mut rest)?;
    if rest.is_empty() {
        Ok(k)
    } else {
        Err(io::Error::other("the temp key is damaged"))
    }
}

/// Reads the key, or creates it: written under a unique name, flushed, then
/// linked into place only if no other process did so first.
fn load_key() -> io::Result<Key> {
    let state = Private::state(true)?;
    if let Some((f, _)) = state.open_read(OsStr::new(KEY_FILE))? {
        return read_key(f);
    }
    let mut k = Key::default();
    getrandom::fill(&mut k).map_err(|e| io::Error::other(e.to_string()))?;
    // data: the key's temp file name, `<key file>.<pid>`
    let mut tmp = OsString::from(format!("{KEY_FILE}.{}", std::process::id()));
    let mut r = [0u8; 8];
    getrandom::fill(&mut r).map_err(|e| io::Error::other(e.to_string()))?;
    tmp.push(crate::codec::source::hex(&r));
    let mut f = state.create_new(&tmp)?;
    let made = f
        .write_all(&k)
        .and_then(|()| f.sync_all())
        .and_then(|()| state.dir().rename_noreplace(&tmp, OsStr::new(KEY_FILE)));
    let _ = state.dir().unlink(&tmp);
    match made {
        Ok(()) => {
            let _ = state.dir().sync();
            Ok(k)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let (f, _) = state
                .open_read(OsStr::new(KEY_FILE))?
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            read_key(f)
        }
        Err(e) => Err(e),
    }
}

/// HMAC-SHA256 of the concatenation of `msg` under `key`.
fn hmac(key: &Key, msg: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    let pad = |x: u8| block.map(|b| b ^ x);
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    for m in msg {
        inner.update(m);
    }
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// The tag of the temp name whose text before the tag is `head`
/// (`.<name>.pft-<random>`) in the directory `dir`.
fn tag(key: &Key, dir: &Meta, head: &[u8]) -> [u8; 8] {
    let d = hmac(
        key,
        &[
            b"patch-file-tool temp\0",
            &dir.dev.to_le_bytes(),
            &dir.ino.to_le_bytes(),
            head,
        ],
    );
    let mut t = [0u8; 8];
    t.copy_from_slice(&d[..8]);
    t
}

pub(crate) fn random8() -> [u8; 8] {
    let mut rnd = [0u8; 8];
    if getrandom::fill(&mut rnd).is_err() {
        // Exclusive creation still guarantees safety; only uniqueness suffers.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        rnd = (t.as_nanos() as u64 ^ std::process::id() as u64).to_le_bytes();
    }
    rnd
}

/// A new temp name beside `target` in `dir` (see the module docs).
pub(crate) fn name(dir: &Dir, target: &OsStr) -> OsString {
    let lossy = target.to_string_lossy();
    // Short enough for NAME_MAX even for long targets.
    let short: String = lossy.chars().take(100).collect();
    // data: the temp name's head, before its tag
    let head = format!(
        ".{short}{TEMP_MARK}{}",
        crate::codec::source::hex(&random8())
    );
    let t = match (key(), dir.meta()) {
        (Some(k), Ok(m)) => tag(&k, &m, head.as_bytes()),
        _ => random8(),
    };
    // data: the temp file's name, head, tag and suffix
    OsString::from(format!(
        "{head}{}{TEMP_SUFFIX}",
        crate::codec::source::hex(&t)
    ))
}

/// Creates a new temp file beside `target` in `dir`, exclusively, with
/// creation mode `mode` (umask applies); returns it and its name.
pub fn create(dir: &Dir, target: &OsStr, mode: u32) -> io::Result<(File, OsString)> {
    check_fault(Step::TempCreate)?;
    let mut tries = 0;
    loop {
        let tmp = name(dir, target);
        match dir.create_exclusive(&tmp, mode) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Whether the file `n` (metadata `m`) in `dir` is a temp file this user's
/// engine created: the name's tag verifies under this user's key and the
/// directory's identity, and the file is a regular file of this user. For
/// root, of any user: root gives a temp the owner of the file it replaces
/// (another user's file in a bind-mounted project), and its tag, which no
/// one but root can make, says whose temp it is; such a temp left by a
/// killed root writer was never swept. (The sweep only removes the name.)
pub(crate) fn is_ours(dir: &Dir, n: &OsStr, m: &Meta) -> bool {
    if !crate::io::dir::is_temp_name(n) || m.kind != Kind::File {
        return false;
    }
    let me = euid();
    if me != 0 && m.uid.is_some_and(|u| u != me) {
        return false;
    }
    let (Some(k), Ok(d), Some(s)) = (key(), dir.meta(), n.to_str()) else {
        return false;
    };
    let body = &s[..s.len() - TEMP_SUFFIX.len()];
    let (head, t) = body.split_at(body.len() - 16);
    t == crate::codec::source::hex(&tag(&k, &d, head.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        // Key "Jefe" (zero-padded to our fixed 32 bytes is the same HMAC:
        // short keys are zero-padded to the block).
        let mut k = Key::default();
        k[..4].copy_from_slice(b"Jefe");
        let d = hmac(&k, &[b"what do ya want ", b"for nothing?"]);
        assert_eq!(
            crate::codec::source::hex(&d),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn only_names_made_here_are_ours() {
        let t = tempfile::tempdir().unwrap();
        let d = Dir::open_root(t.path()).unwrap();
        let (f, n) = create(&d, OsStr::new("main.rs"), 0o600).unwrap();
        let m = Dir::meta_of_file(&f).unwrap();
        assert!(crate::io::dir::is_temp_name(&n), "{n:?}");
        assert!(is_ours(&d, &n, &m));
        // The same name in another directory, a hand-made one, a changed tag.
        let other = tempfile::tempdir().unwrap();
        let od = Dir::open_root(other.path()).unwrap();
        assert!(!is_ours(&od, &n, &m));
        let s = n.to_str().unwrap();
        let forged = format!(".main.rs.pft-{}.tmp", "0".repeat(32));
        assert!(!is_ours(&d, OsStr::new(&forged), &m));
        let mut flipped = s.to_string().into_bytes();
        let i = flipped.len() - TEMP_SUFFIX.len() - 1;
        flipped[i] = if flipped[i] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).unwrap();
        assert!(!is_ours(&d, OsStr::new(&flipped), &m));
    }

    /// Root's temp given another user's ownership (the owner of the file it
    /// replaces) is still root's to sweep; another user's is never theirs.
    #[cfg(unix)]
    #[test]
    fn roots_temp_of_another_owner_is_roots() {
        let t = tempfile::tempdir().unwrap();
        let d = Dir::open_root(t.path()).unwrap();
        let (f, n) = create(&d, OsStr::new("main.rs"), 0o600).unwrap();
        if euid() != 0 {
            // Not root: a file of another owner cannot be made here.
            return;
        }
        std::os::unix::fs::fchown(&f, Some(4242), Some(4242)).unwrap();
        let m = Dir::meta_of_file(&f).unwrap();
        assert_eq!(m.uid, Some(4242));
        assert!(is_ours(&d, &n, &m));
        let forged = format!(".main.rs.pft-{}.tmp", "0".repeat(32));
        assert!(!is_ours(&d, OsStr::new(&forged), &m));
    }
}
