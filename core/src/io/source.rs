//! Reading a file: the one read path of every entry point.

use std::io::Read;

use crate::codec::source::Source;
use crate::error::{ErrorCode, Failure};
use crate::io::dir::{check_fault, Dir, Meta, Step};
use crate::io::workspace::Resolved;
use crate::model::Options;
use crate::printer;

/// Buffers at least this big are backed by transparent huge pages where
/// the kernel allows it (Linux only).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) const HUGE_PAGE_READ_BYTES: usize = 4 << 20;

/// An empty buffer with room for `cap` bytes to read a file into.
///
/// Fresh memory costs a page fault and a zeroed page per 4 KiB on first
/// touch; for a 200 MiB file that was half the read time (109 ms of
/// faults and copying instead of 65 ms, and 10 ms to free it). So on Linux
/// a big buffer is advised `MADV_HUGEPAGE` (2 MiB pages) before the read.
/// This is a hint about our own anonymous memory, not a mapping of the user's
/// file (which a concurrent truncation could turn into SIGBUS); if the
/// kernel refuses it nothing changes.
///
/// `None` when the memory cannot be had: an allocation failure must end the
/// call with a failure, not abort the process.
fn read_buffer(cap: usize) -> Option<Vec<u8>> {
    let mut v: Vec<u8> = Vec::new();
    v.try_reserve_exact(cap).ok()?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if cap >= HUGE_PAGE_READ_BYTES {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let from = start.next_multiple_of(HUGE);
        let to = (start + cap) & !(HUGE - 1);
        if to > from {
            // SAFETY: [from, to) lies inside the allocation `v` owns and has
            // not handed out; the advice changes how pages are backed, never
            // their contents or validity.
            let _ = unsafe {
                rustix::mm::madvise(
                    from as *mut std::ffi::c_void,
                    to - from,
                    rustix::mm::Advice::LinuxHugepage,
                )
            };
        }
    }
    Some(v)
}

/// The sha256 of what `file` holds from its current position, read in
/// 1 MiB chunks (memory independent of its size), as lower-case hex.
pub(crate) fn sha256_of(mut file: std::fs::File) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(crate::codec::source::hex(&h.finalize())),
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Reads `len_hint` bytes from `file` and classifies them. `path` is for messages.
pub(crate) fn read(file: std::fs::File, len_hint: u64, path: &str) -> Result<Source, Failure> {
    Source::from_bytes(read_raw(&file, len_hint, path)?, path)
}

/// Reads what `file` holds (`len_hint` bytes expected).
fn read_raw(mut file: &std::fs::File, len_hint: u64, path: &str) -> Result<Vec<u8>, Failure> {
    check_fault(Step::Read)
        .map_err(|e| Failure::new(ErrorCode::FILE_READ_ERROR, printer::cannot_read(path, &e)))?;
    let mut raw = read_buffer(len_hint as usize + 1).ok_or_else(|| {
        Failure::new(
            ErrorCode::FILE_TOO_LARGE,
            printer::no_memory_to_read(path, len_hint),
        )
    })?;
    file.read_to_end(&mut raw)
        .map_err(|e| Failure::new(ErrorCode::FILE_READ_ERROR, printer::cannot_read(path, &e)))?;
    Ok(raw)
}

/// A file as read: its content (for a file torn by an interrupted in-place
/// write, its content before that write), its metadata, and a note when
/// the content is not the bytes on disk.
pub(crate) type Loaded = (Source, Meta, Option<String>);

/// Opens and reads an existing resolved file, refusing it before the read
/// when it is larger than `maxFileBytes`. The one read path of every entry
/// point (edits, batches, dry-run applies, edit formats, readFile).
///
/// A file torn by an in-place write that died is read as its content before
/// that write, from the engine's record of it, with a note
/// ([`crate::io::recovery`] has the rule); nothing is written here.
pub(crate) fn read_existing(
    res: &Resolved,
    opts: &Options,
    display: &str,
) -> Result<Loaded, Failure> {
    let too_large = |size: u64| {
        Failure::new(
            ErrorCode::FILE_TOO_LARGE,
            printer::too_large_unread(display, size, opts.max_file_bytes),
        )
    };
    if let Some(m) = &res.meta {
        if m.size > opts.max_file_bytes {
            return Err(too_large(m.size));
        }
    }
    let (file, meta) = res.dir.open_file(&res.name).map_err(|e| {
        Failure::new(
            ErrorCode::FILE_READ_ERROR,
            printer::unopened_retry(display, &e),
        )
    })?;
    if meta.size > opts.max_file_bytes {
        return Err(too_large(meta.size));
    }
    // Held until the bytes are read and judged: an in-place writer of
    // another engine process holds the exclusive lock from its final check
    // to its last byte, so what is read is never half of its write, and a
    // recovery record seen here is a dead writer's (see `io::recovery`).
    match Dir::lock_shared(&file, crate::io::locks::process_wait()) {
        Ok(true) => {}
        Ok(false) => return Err(busy(display)),
        Err(e) => return Err(read_failed(display, &e)),
    }
    let raw = read_raw(&file, meta.size, display)?;
    match crate::io::recovery::inspect(&res.dir, &res.name, &file, &meta, &raw, display) {
        Ok(Some((before, note))) => Ok((Source::from_bytes(before, display)?, meta, Some(note))),
        Ok(None) => Ok((Source::from_bytes(raw, display)?, meta, None)),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Err(busy(display)),
        Err(e) => Err(read_failed(display, &e)),
    }
}

/// `display` is being written by another engine process (it holds the
/// file's lock, or its in-place write record) longer than we wait.
fn busy(display: &str) -> Failure {
    Failure::new(ErrorCode::FILE_LOCKED, printer::lock_held_on_read(display))
}

fn read_failed(display: &str, e: &std::io::Error) -> Failure {
    Failure::new(ErrorCode::FILE_READ_ERROR, printer::cannot_read(display, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_reads_are_byte_exact() {
        // Above HUGE_PAGE_READ_BYTES (4 MiB), so on Linux the buffer is
        // advised huge pages.
        let bytes: Vec<u8> = (0..(8 << 20) + 12_345)
            .map(|i| b"abcdefghij\n"[i % 11])
            .collect();
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, &bytes).unwrap();
        std::io::Seek::rewind(&mut f).unwrap();
        let s = read(f, bytes.len() as u64, "big").unwrap();
        assert_eq!(s.raw(), bytes.as_slice());
        assert_eq!(s.encoding(), crate::codec::source::Encoding::Utf8);
    }
}
