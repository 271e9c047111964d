//! What a file carries besides its bytes, and whether a replacement by
//! rename can carry it over.
//!
//! Replacing a file by rename gives the name a new inode: everything that
//! belongs to the old inode is lost unless it is copied onto the new one
//! first. Mode bits are copied everywhere; on Linux so are the owner and
//! group (which only root, or an owner keeping a group it belongs to, may
//! set), the extended attributes (`user.*`, `trusted.*`, `security.*`, and
//! the POSIX ACLs stored as `system.posix_acl_*`) and the inode flags that
//! `chattr` sets. Some things cannot be copied at all: a second hard link
//! keeps pointing at the old inode, a bind-mounted file cannot be renamed
//! over, and a sticky directory refuses to let one user replace another's
//! file. When anything would be lost, the commit keeps the inode and writes
//! in place instead (see `io::commit`).

use std::ffi::CString;
use std::fs::File;
use std::io;

use crate::io::dir::{Dir, Meta};

/// Inode flags (`chattr`) a new file may take from the original. Flags that
/// forbid writing (immutable, append-only) never reach a commit: the
/// writability check refuses such files first.
#[cfg(any(target_os = "linux", target_os = "android"))]
/// Every flag `chattr` sets on a regular file is here (`s` secure
/// deletion, `t` no tail merging, `j` data journaling, `x` DAX and `m` no
/// compression among them): a flag left out would be dropped silently by
/// every edit that replaces the file.
const COPIED_FLAGS: u32 = {
    use rustix::fs::IFlags;
    /// `FS_DAX_FL` and `FS_NOCOMP_FL` (`linux/fs.h`), which `IFlags` does not name.
    const DAX: u32 = 0x0200_0000;
    const NOCOMP: u32 = 0x0000_0400;
    IFlags::NODUMP.bits()
        | IFlags::NOATIME.bits()
        | IFlags::SYNC.bits()
        | IFlags::DIRSYNC.bits()
        | IFlags::COMPRESSED.bits()
        | IFlags::NOCOW.bits()
        | IFlags::PROJECT_INHERIT.bits()
        | IFlags::UNRM.bits()
        | IFlags::SECURE_REMOVAL.bits()
        | IFlags::NOTAIL.bits()
        | IFlags::JOURNALING.bits()
        | DAX
        | NOCOMP
};

/// The extended attributes and inode flags of a file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Extras {
    /// `(name, value)` of every extended attribute, ACLs included.
    pub(crate) xattrs: Vec<(CString, Vec<u8>)>,
    /// The copyable inode flags that are set.
    pub(crate) flags: u32,
}

/// Reads `file`'s extended attributes and inode flags. A file system that
/// has neither gives empty extras.
pub(crate) fn capture(file: &File) -> io::Result<Extras> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut out = Extras::default();
        use rustix::io::Errno;
        let names = match list_xattrs(file) {
            Ok(n) => n,
            Err(Errno::OPNOTSUPP) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        for name in names {
            match get_xattr(file, &name) {
                Ok(v) => out.xattrs.push((name, v)),
                // Removed meanwhile.
                Err(Errno::NODATA) => {}
                Err(e) => return Err(e.into()),
            }
        }
        out.flags = match rustix::fs::ioctl_getflags(file) {
            Ok(f) => f.bits() & COPIED_FLAGS,
            Err(Errno::NOTTY | Errno::OPNOTSUPP | Errno::INVAL | Errno::NOSYS) => 0,
            Err(e) => return Err(e.into()),
        };
        Ok(out)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        Ok(Extras::default())
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn list_xattrs(file: &File) -> rustix::io::Result<Vec<CString>> {
    loop {
        let size = rustix::fs::flistxattr_query(file)?;
        if size == 0 {
            return Ok(Vec::new());
        }
        let mut buf: Vec<u8> = vec![0; size];
        match rustix::fs::flistxattr(file, &mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf
                    .split(|&b| b == 0)
                    .filter(|n| !n.is_empty())
                    .filter_map(|n| CString::new(n).ok())
                    .collect());
            }
            // Grew between the two calls.
            Err(rustix::io::Errno::RANGE) => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn get_xattr(file: &File, name: &CString) -> rustix::io::Result<Vec<u8>> {
    loop {
        let size = rustix::fs::fgetxattr_query(file, name.as_c_str())?;
        if size == 0 {
            return Ok(Vec::new());
        }
        let mut buf: Vec<u8> = vec![0; size];
        match rustix::fs::fgetxattr(file, name.as_c_str(), &mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            Err(rustix::io::Errno::RANGE) => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The name of a file's capability set (`setcap`).
#[cfg(any(target_os = "linux", target_os = "android"))]
const CAPABILITY: &std::ffi::CStr = c"security.capability";

/// `file`'s capability set (`setcap`), if it has one. The kernel takes it
/// off any file written to, so a write in place reads it first and puts it
/// back after ([`set_capability`]).
pub(crate) fn capability(file: &File) -> Option<Vec<u8>> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        get_xattr(file, &CAPABILITY.to_owned()).ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        None
    }
}

/// Gives `file` the capability set `value` (only a privileged process may).
pub(crate) fn set_capability(file: &File, value: &[u8]) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::fs::fsetxattr(file, CAPABILITY, value, rustix::fs::XattrFlags::empty())?;
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (file, value);
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// Puts `extras` on `file` (a new temp file that will replace the
/// original). Any attribute or flag that cannot be set is an error: the
/// caller then keeps the original inode instead of losing it.
pub(crate) fn apply(file: &File, extras: &Extras) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{IFlags, XattrFlags};
        // A new file may already carry some (an inherited default ACL, an
        // SELinux label): those are replaced, and any it has that the
        // original had not are removed, so the two end up alike.
        let had: Vec<CString> = list_xattrs(file).unwrap_or_default();
        for name in had {
            if !extras.xattrs.iter().any(|(n, _)| *n == name) {
                rustix::fs::fremovexattr(file, name.as_c_str())?;
            }
        }
        for (name, value) in &extras.xattrs {
            rustix::fs::fsetxattr(file, name.as_c_str(), value, XattrFlags::empty())?;
        }
        // Flags too: a new file inherits its directory's (`chattr +dA dir`),
        // which the original may not have.
        let now = match rustix::fs::ioctl_getflags(file) {
            Ok(f) => f,
            Err(
                rustix::io::Errno::NOTTY
                | rustix::io::Errno::OPNOTSUPP
                | rustix::io::Errno::INVAL
                | rustix::io::Errno::NOSYS,
            ) if extras.flags == 0 => {
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        let want = IFlags::from_bits_retain((now.bits() & !COPIED_FLAGS) | extras.flags);
        if want != now {
            rustix::fs::ioctl_setflags(file, want)?;
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = (file, extras);
    Ok(())
}

/// What a *new* file takes from the file it stands for — a file brought
/// back by undoing its deletion, or a moved file: owner, group and mode
/// (`meta`), and the extended attributes and flags when they are known.
#[derive(Debug, Clone)]
pub(crate) struct Like {
    pub(crate) meta: Meta,
    pub(crate) extras: Option<Extras>,
}

/// Puts on `file` (a new temp file) each of `extras` this process may set,
/// and removes attributes it inherited that `extras` lacks; returns what
/// could not be set (an attribute name, or `flags`). Unlike [`apply`] a
/// refusal is not an error: a new file has no original inode to fall back
/// on, so it gets everything it is permitted to have and the caller says
/// what is missing.
pub(crate) fn apply_permitted(file: &File, extras: &Extras) -> Vec<String> {
    let mut lost = Vec::new();
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{IFlags, XattrFlags};
        for name in list_xattrs(file).unwrap_or_default() {
            if !extras.xattrs.iter().any(|(n, _)| *n == name) {
                let _ = rustix::fs::fremovexattr(file, name.as_c_str());
            }
        }
        for (name, value) in &extras.xattrs {
            if rustix::fs::fsetxattr(file, name.as_c_str(), value, XattrFlags::empty()).is_err() {
                lost.push(name.to_string_lossy().into_owned());
            }
        }
        if extras.flags != 0 {
            let set = rustix::fs::ioctl_getflags(file).and_then(|now| {
                let want = IFlags::from_bits_retain((now.bits() & !COPIED_FLAGS) | extras.flags);
                if want == now {
                    Ok(())
                } else {
                    rustix::fs::ioctl_setflags(file, want)
                }
            });
            if set.is_err() {
                lost.push("flags".into());
            }
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        if !extras.xattrs.is_empty() || extras.flags != 0 {
            lost.push("extended attributes".into());
        }
    }
    lost
}

/// The permission bits a new file may take from `want` (the file it stands
/// for) once it has the owner and group in `got`: set-user-id only with the
/// same owner, set-group-id only with the same group, so that bringing a
/// file back never makes a set-id program of someone else's.
pub(crate) fn set_id_kept(mode: u32, want: &Meta, got: &Meta) -> u32 {
    let mut m = mode;
    if want.uid != got.uid {
        m &= !0o4000;
    }
    if want.gid != got.gid {
        m &= !0o2000;
    }
    m
}

/// Why a replacement by rename would not keep everything about the
/// original file `meta` named `name` in `dir`, if it would not. Checked
/// before any temp file is made; what only a try can tell (giving the new
/// file the original's owner, copying an attribute) is checked while the
/// temp file is prepared.
pub(crate) fn rename_loses(
    dir: &Dir,
    name: &std::ffi::OsStr,
    meta: &Meta,
    split_links: bool,
) -> Option<&'static str> {
    if meta.nlink > 1 && !split_links {
        return Some("it has other hard links, which a replacement would split from it");
    }
    if dir.is_mount_point(name) {
        return Some("it is a mount point (bind-mounted), which cannot be renamed over");
    }
    #[cfg(unix)]
    {
        let euid = rustix::process::geteuid().as_raw();
        if euid != 0 {
            if let Ok(d) = dir.meta() {
                let sticky = d.mode.unwrap_or(0) & 0o1000 != 0;
                if sticky && meta.uid != Some(euid) && d.uid != Some(euid) {
                    return Some("it belongs to another user in a sticky directory");
                }
            }
        }
    }
    None
}

/// Whether this process may give a new file `uid` and `gid` (root may; an
/// owner may keep its own uid and pick one of its groups).
#[cfg(unix)]
pub(crate) fn may_own(uid: u32, gid: u32) -> bool {
    let euid = rustix::process::geteuid().as_raw();
    if euid == 0 {
        return true;
    }
    if uid != euid {
        return false;
    }
    if rustix::process::getegid().as_raw() == gid {
        return true;
    }
    rustix::process::getgroups().is_ok_and(|g| g.iter().any(|x| x.as_raw() == gid))
}
