//! One journal entry: its format, and reading it back without trusting it.
//!
//! An entry is `<id:010>-<bytes>.entry`: one line of JSON (the header),
//! then the previous content of the files the journal copied, back to
//! back. A file whose replaced inode the journal kept instead has no bytes
//! here: its header names the kept inode (`<id>-<k>-<size>-<ino>.kept`),
//! its device and inode numbers and size. The header line ends with
//! `"check":"<sha256>"`, the sha256 of the line without that field, so an
//! entry cut short, damaged or edited by hand is recognised as such.
//!
//! Reading one back assumes nothing: the file must be a regular file of
//! the user's (opened without following a link, non-blocking), its header
//! line is read at most up to the file's real size and
//! [`MAX_HEADER_BYTES`], every length and offset in it is checked against
//! the file's real size before anything is allocated, and every allocation
//! is fallible. Whatever fails a check makes the entry *damaged*, with a
//! stable [`EntryDamage::kind`]: it is listed as such and never acted on.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};

use serde::{Deserialize, Serialize};

use super::store::{kept_name, Store};
use crate::codec::source::sha256_hex;
use crate::printer::{self, FileFlaw};
use crate::result::history::Damage;

/// The format version this engine writes and reads.
pub(crate) const VERSION: u32 = 2;
/// Longest header line read (a transaction of tens of thousands of files).
pub(crate) const MAX_HEADER_BYTES: u64 = 16 << 20;

/// An entry's header (the first line).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Header {
    pub(crate) v: u32,
    pub(crate) id: String,
    pub(crate) time: String,
    pub(crate) time_ms: u64,
    /// The workspace root, for people (lossy where it is not UTF-8).
    pub(crate) root: String,
    /// The workspace root's exact bytes, when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) root_hex: Option<String>,
    pub(crate) entry: String,
    pub(crate) undoable: bool,
    pub(crate) why_not_undoable: Option<String>,
    pub(crate) undoes: Option<String>,
    pub(crate) depth: u64,
    pub(crate) body_bytes: u64,
    pub(crate) files: Vec<FileRec>,
}

/// One file of an entry.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct FileRec {
    pub(crate) path: String,
    /// `modified`, `created` or `deleted`.
    pub(crate) kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) moved_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) moved_to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) size_before: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) size_after: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sha256_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sha256_after: Option<String>,
    /// Owner, group and permission bits before (modified, deleted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mode: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) gid: Option<u32>,
    /// A deleted file's extended attributes (`[name, value]` in hex) and
    /// inode flags as the commit removed it (content copied or inode kept).
    /// Absent from entries of earlier versions with a kept inode: undo then
    /// takes the attributes (not the owner or mode) from the kept inode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) xattrs: Option<Vec<[String; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) flags: Option<u32>,
    pub(crate) added: u64,
    pub(crate) removed: u64,
    /// Copied content: `[offset, length]` after the header line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) blob: Option<[u64; 2]>,
    /// Kept content: the replaced inode itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kept: Option<KeptRec>,
}

/// A kept inode, as recorded when it was linked in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeptRec {
    pub(crate) name: String,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
}

/// Why an entry cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryDamage {
    /// Stable: `not_a_file` (a link, FIFO, directory… named like an
    /// entry), `foreign_owner` (another user's file), `unreadable` (an I/O
    /// error), `bad_header` (no whole header line, not the format, or its
    /// check does not match: cut short or edited), `wrong_length` (the file
    /// is not as long as its header says), `bad_fields` (a length, offset,
    /// name or hash in the header that cannot be), `kept_inode` (a kept
    /// inode missing or not the one recorded), `bad_content` (saved content
    /// without its recorded sha256).
    pub(crate) kind: Damage,
    pub(crate) why: String,
}

impl EntryDamage {
    fn new(kind: Damage, why: impl Into<String>) -> Self {
        EntryDamage {
            kind,
            why: why.into(),
        }
    }
}

fn unreadable(e: &io::Error) -> EntryDamage {
    EntryDamage::new(
        Damage::Unreadable,
        printer::entry_unreadable(&e.to_string()),
    )
}

/// The header line with its check: the JSON of `h`, then the sha256 of
/// that JSON as its last field, then a newline.
pub(crate) fn encode(h: &Header) -> Vec<u8> {
    let mut b = serde_json::to_vec(h).expect("a header serializes");
    let sum = sha256_hex([b.as_slice()]);
    b.pop(); // the closing brace
    b.extend_from_slice(b",\"check\":\"");
    b.extend_from_slice(sum.as_bytes());
    b.extend_from_slice(b"\"}\n");
    b
}

/// The JSON a header line (without its newline) checks out to, if it does.
fn checked(line: &[u8]) -> Option<Vec<u8>> {
    const HEAD: &[u8] = b",\"check\":\"";
    const TAIL: usize = 10 + 64 + 2;
    if line.len() < TAIL + 2 {
        return None;
    }
    let (body, tail) = line.split_at(line.len() - TAIL);
    if !tail.starts_with(HEAD) || !tail.ends_with(b"\"}") {
        return None;
    }
    let mut json = Vec::new();
    json.try_reserve_exact(body.len() + 1).ok()?;
    json.extend_from_slice(body);
    json.push(b'}');
    (sha256_hex([json.as_slice()]).as_bytes() == &tail[HEAD.len()..HEAD.len() + 64]).then_some(json)
}

fn is_sha(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A whole, consistent entry (its header checked against the file).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) id: u64,
    pub(crate) name: OsString,
    /// The entry file's length.
    pub(crate) size: u64,
    /// Where the copied contents start (the header line's length).
    pub(crate) body_at: u64,
    pub(crate) header: Header,
}

impl Entry {
    pub(crate) fn undoes(&self) -> Option<u64> {
        self.header.undoes.as_deref().and_then(|s| s.parse().ok())
    }
    pub(crate) fn depth(&self) -> u64 {
        self.header.depth
    }
    pub(crate) fn undoable(&self) -> bool {
        self.header.undoable
    }
    pub(crate) fn files(&self) -> &[FileRec] {
        &self.header.files
    }
}

/// The header line of `f` (`size` bytes long), without its newline.
fn header_line(f: &mut File, size: u64) -> Result<Vec<u8>, EntryDamage> {
    let cap = size.min(MAX_HEADER_BYTES) as usize;
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    loop {
        let n = match f.read(&mut chunk) {
            Ok(0) => {
                return Err(EntryDamage::new(
                    Damage::BadHeader,
                    "its header line is not whole (cut short?)",
                ))
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(unreadable(&e)),
        };
        let (take, done) = match memchr::memchr(b'\n', &chunk[..n]) {
            Some(i) => (i, true),
            None => (n, false),
        };
        if line.len() + take > cap {
            return Err(EntryDamage::new(
                Damage::BadHeader,
                "its header line is longer than the file or than any the journal writes",
            ));
        }
        line.try_reserve(take)
            .map_err(|_| EntryDamage::new(Damage::Unreadable, "no memory for its header"))?;
        line.extend_from_slice(&chunk[..take]);
        if done {
            return Ok(line);
        }
    }
}

/// Checks what a header says against the file it is in (`size` bytes,
/// header line `header_len` bytes with its newline) and against itself.
fn validate(h: &Header, id: u64, size: u64, header_len: u64) -> Result<(), EntryDamage> {
    let bad = |why: String| Err(EntryDamage::new(Damage::BadFields, why));
    if h.v != VERSION {
        return Err(EntryDamage::new(
            Damage::BadHeader,
            printer::other_version(h.v, VERSION),
        ));
    }
    if h.id != id.to_string() {
        return bad(printer::id_mismatch(&h.id, id));
    }
    if header_len.checked_add(h.body_bytes) != Some(size) {
        return Err(EntryDamage::new(
            Damage::WrongLength,
            printer::wrong_length(size, header_len.saturating_add(h.body_bytes)),
        ));
    }
    if h.undoes.is_some() != (h.depth > 0)
        || h.undoes
            .as_deref()
            .is_some_and(|u| u.parse::<u64>().is_err())
    {
        return bad("its undo link is inconsistent".into());
    }
    let mut inline = 0u64;
    for (k, f) in h.files.iter().enumerate() {
        let flaw = |x| printer::file_flaw(k, &f.path, x);
        if f.path.is_empty() || !matches!(f.kind.as_str(), "modified" | "created" | "deleted") {
            return bad(flaw(FileFlaw::NoPathOrKind));
        }
        for s in [&f.sha256_before, &f.sha256_after].into_iter().flatten() {
            if !is_sha(s) {
                return bad(flaw(FileFlaw::MalformedSha));
            }
        }
        if let Some([off, len]) = f.blob {
            let end = off.checked_add(len);
            if end.is_none_or(|e| e > h.body_bytes) || Some(len) != f.size_before {
                return bad(flaw(FileFlaw::ContentOutside));
            }
            inline = inline.saturating_add(len);
        }
        if let Some(kr) = &f.kept {
            if kr.name != kept_name(id, k, kr.size, kr.ino) || Some(kr.size) != f.size_before {
                return bad(flaw(FileFlaw::KeptMisnamed));
            }
        }
        let has_content = f.blob.is_some() || f.kept.is_some();
        if (f.blob.is_some() && f.kept.is_some()) || (f.kind == "created" && has_content) {
            return bad(flaw(FileFlaw::ImpossibleContent));
        }
        if h.undoable {
            let before = f.kind == "created" || (has_content && f.sha256_before.is_some());
            let after = f.kind == "deleted" || f.sha256_after.is_some();
            if !(before && after) {
                return bad(flaw(FileFlaw::LacksUndo));
            }
        }
    }
    if inline != h.body_bytes {
        return bad("its saved contents do not fill its body".into());
    }
    Ok(())
}

/// Reads entry `id` (file `name`) of `store`: whole and consistent, or
/// why not. Kept inodes are checked by their directory entry only (no
/// open): present, a regular file, the recorded device, inode and size.
pub(crate) fn read(store: &Store, id: u64, name: &OsStr) -> Result<Entry, EntryDamage> {
    let dir = store.private();
    let (mut f, m) = match dir.open_read(name) {
        Ok(Some(x)) => x,
        Ok(None) => {
            return Err(EntryDamage::new(
                Damage::Unreadable,
                "it was removed meanwhile",
            ))
        }
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            let kind = if e.to_string().contains("belongs to uid") {
                Damage::ForeignOwner
            } else {
                Damage::NotAFile
            };
            return Err(EntryDamage::new(kind, e.to_string()));
        }
        Err(e) => return Err(unreadable(&e)),
    };
    let line = header_line(&mut f, m.size)?;
    let json = checked(&line).ok_or_else(|| {
        EntryDamage::new(
            Damage::BadHeader,
            "its header does not match its check (cut short, damaged or edited)",
        )
    })?;
    let header: Header = serde_json::from_slice(&json).map_err(|e| {
        EntryDamage::new(Damage::BadHeader, printer::foreign_header(&e.to_string()))
    })?;
    let header_len = line.len() as u64 + 1;
    validate(&header, id, m.size, header_len)?;
    for f in &header.files {
        if let Some(kr) = &f.kept {
            let ok = dir
                .dir()
                .stat(OsStr::new(&kr.name))
                .ok()
                .flatten()
                .is_some_and(|k| {
                    k.kind == crate::io::dir::Kind::File
                        && (k.dev, k.ino, k.size) == (kr.dev, kr.ino, kr.size)
                });
            if !ok {
                return Err(EntryDamage::new(
                    Damage::KeptInode,
                    printer::kept_missing(&f.path),
                ));
            }
        }
    }
    Ok(Entry {
        id,
        name: name.to_os_string(),
        size: m.size,
        body_at: header_len,
        header,
    })
}

/// The previous content of file `k` of `e`, read from the entry or from
/// its kept inode and checked against its recorded sha256; `Ok(None)` when
/// none was kept. Nothing larger than the file it comes from, nor than
/// `limit` (the largest file the call may write), is allocated.
pub(crate) fn content(
    store: &Store,
    e: &Entry,
    k: usize,
    limit: u64,
) -> Result<Option<Vec<u8>>, EntryDamage> {
    let f = &e.header.files[k];
    if f.size_before.is_some_and(|n| n > limit) {
        return Err(EntryDamage::new(
            Damage::BadFields,
            printer::saved_over_limit(&f.path, limit),
        ));
    }
    let bytes = if let Some([off, len]) = f.blob {
        let Some((file, m)) = store
            .private()
            .open_read(&e.name)
            .map_err(|x| unreadable(&x))?
        else {
            return Err(EntryDamage::new(
                Damage::Unreadable,
                "it was removed meanwhile",
            ));
        };
        if m.size != e.size {
            return Err(EntryDamage::new(
                Damage::WrongLength,
                "it changed length since it was read",
            ));
        }
        read_at(&file, e.body_at + off, len, m.size)?
    } else if let Some(kr) = &f.kept {
        let name = OsStr::new(&kr.name);
        let Some((file, m)) = store
            .private()
            .open_linked(name)
            .map_err(|x| unreadable(&x))?
        else {
            return Err(EntryDamage::new(
                Damage::KeptInode,
                "its kept inode was removed",
            ));
        };
        if (m.dev, m.ino, m.size) != (kr.dev, kr.ino, kr.size) {
            return Err(EntryDamage::new(
                Damage::KeptInode,
                printer::kept_replaced(&f.path),
            ));
        }
        read_at(&file, 0, kr.size, m.size)?
    } else {
        return Ok(None);
    };
    if f.sha256_before.as_deref() != Some(sha256_hex([bytes.as_slice()]).as_str()) {
        // A kept inode can still be written by whoever held the file open.
        let why = printer::content_changed(&f.path, f.kept.is_some());
        return Err(EntryDamage::new(Damage::BadContent, why));
    }
    Ok(Some(bytes))
}

/// `len` bytes of `file` (`size` bytes long) from `off`.
fn read_at(file: &File, off: u64, len: u64, size: u64) -> Result<Vec<u8>, EntryDamage> {
    if off.checked_add(len).is_none_or(|end| end > size) {
        return Err(EntryDamage::new(
            Damage::BadFields,
            "saved content lies outside its file",
        ));
    }
    let n = usize::try_from(len)
        .map_err(|_| EntryDamage::new(Damage::BadFields, "saved content too large"))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(n)
        .map_err(|_| EntryDamage::new(Damage::Unreadable, "no memory for its saved content"))?;
    buf.resize(n, 0);
    read_exact_at(file, &mut buf, off).map_err(|e| unreadable(&e))?;
    Ok(buf)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], off: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, off)
}

#[cfg(not(unix))]
fn read_exact_at(mut file: &File, buf: &mut [u8], off: u64) -> io::Result<()> {
    use std::io::Seek;
    file.seek(io::SeekFrom::Start(off))?;
    file.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            v: VERSION,
            id: "3".into(),
            time: "t".into(),
            time_ms: 1,
            root: "/r".into(),
            root_hex: None,
            entry: "patchFile".into(),
            undoable: true,
            why_not_undoable: None,
            undoes: None,
            depth: 0,
            body_bytes: 4,
            files: vec![FileRec {
                path: "a".into(),
                kind: "modified".into(),
                size_before: Some(4),
                size_after: Some(4),
                sha256_before: Some("a".repeat(64)),
                sha256_after: Some("b".repeat(64)),
                blob: Some([0, 4]),
                ..FileRec::default()
            }],
        }
    }

    #[test]
    fn the_check_covers_every_byte_of_the_header() {
        let line = encode(&header());
        let body = &line[..line.len() - 1];
        let json = checked(body).expect("checks out");
        let back: Header = serde_json::from_slice(&json).unwrap();
        assert_eq!(back.id, "3");
        // Every single-byte change, and every cut, fails the check.
        for i in 0..body.len() {
            let mut b = body.to_vec();
            b[i] ^= 0x01;
            assert!(checked(&b).is_none(), "flip at {i}");
            assert!(checked(&body[..i]).is_none(), "cut at {i}");
        }
    }

    #[test]
    fn lengths_and_offsets_are_checked_against_the_file() {
        let h = header();
        let hl = encode(&h).len() as u64;
        assert_eq!(validate(&h, 3, hl + 4, hl), Ok(()));
        assert_eq!(
            validate(&h, 3, hl + 3, hl).unwrap_err().kind,
            "wrong_length"
        );
        assert_eq!(validate(&h, 4, hl + 4, hl).unwrap_err().kind, "bad_fields");
        let mut big = h.clone();
        big.files[0].blob = Some([0, 1 << 40]);
        big.files[0].size_before = Some(1 << 40);
        assert_eq!(
            validate(&big, 3, hl + 4, hl).unwrap_err().kind,
            "bad_fields"
        );
        let mut wrap = h.clone();
        wrap.files[0].blob = Some([u64::MAX, 4]);
        assert_eq!(
            validate(&wrap, 3, hl + 4, hl).unwrap_err().kind,
            "bad_fields"
        );
        let mut huge = h.clone();
        huge.body_bytes = u64::MAX;
        assert_eq!(
            validate(&huge, 3, hl + 4, hl).unwrap_err().kind,
            "wrong_length"
        );
        let mut no_sum = h;
        no_sum.files[0].sha256_before = None;
        assert_eq!(
            validate(&no_sum, 3, hl + 4, hl).unwrap_err().kind,
            "bad_fields"
        );
    }
}
