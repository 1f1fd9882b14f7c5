//! The process's memory budget (`--memory`, `TABIYA_MEMORY`, Python's `set_memory_budget`):
//! the sizes the defaults scale down by, and the reservations of address space glibc's heap and
//! new threads make, kept near what is used so that a process runs under an address-space
//! limit (a container's, `ulimit -v`, `prlimit --as`).

use std::sync::OnceLock;

/// The memory budget in bytes ([`set_memory_budget`]); unset, the defaults.
static MEMORY_BUDGET: OnceLock<u64> = OnceLock::new();
/// The budget the defaults are sized for: a budget under it scales the block cache, the
/// memtables and the ingest's games in flight down in proportion.
pub const DEFAULT_MEMORY: u64 = 1 << 30;
/// The smallest budget accepted: below it, what tabiya cannot shrink (threads' stacks, the
/// decoders' tables, a batch of games being sorted) no longer fits.
pub const MIN_MEMORY: u64 = 160 << 20;

/// Bounds the memory of the block cache, the memtables and the ingest's games in flight for
/// the stores opened afterwards, and glibc's heap ([`limit_reservations`], large blocks mapped
/// apart and unmapped when freed). Set once, before a store is opened; setting the same budget
/// again is no change; a budget below [`MIN_MEMORY`], or another than the one set, is refused
/// with the reason.
///
/// ```
/// assert!(tabiya::store::set_memory_budget(100 << 20).is_err());
/// assert_eq!(tabiya::store::set_memory_budget(256 << 20), Ok(()));
/// assert_eq!(tabiya::store::set_memory_budget(256 << 20), Ok(()));
/// assert_eq!(tabiya::store::memory_budget(), Some(256 << 20));
/// assert!(tabiya::store::set_memory_budget(512 << 20).is_err());
/// ```
pub fn set_memory_budget(bytes: u64) -> Result<(), String> {
    if bytes < MIN_MEMORY {
        let asked = match bytes >> 20 {
            0 => format!("{bytes} bytes"),
            mib => format!("{mib} MiB"),
        };
        return Err(format!(
            "a memory budget of {asked} cannot be met: tabiya needs {} MiB at the least",
            MIN_MEMORY >> 20
        ));
    }
    let set = *MEMORY_BUDGET.get_or_init(|| bytes);
    if set != bytes {
        return Err(format!("the memory budget is set already, to {} MiB: it is the process's, set once", set >> 20));
    }
    limit_reservations();
    // SAFETY: sets a number glibc reads when it next allocates.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        // Large blocks as mappings of their own, unmapped when freed: glibc raises its threshold
        // as large blocks are freed, keeping them in its heap; a fixed one holds the address
        // space to what is used.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    Ok(())
}

/// The share of the defaults the budget allows (1 without a budget, or with one above them).
pub fn memory_share() -> f64 {
    MEMORY_BUDGET.get().map_or(1.0, |bytes| (*bytes as f64 / DEFAULT_MEMORY as f64).min(1.0))
}

/// The memory budget in bytes ([`set_memory_budget`]), if one is set.
pub fn memory_budget() -> Option<u64> {
    MEMORY_BUDGET.get().copied()
}

/// `bytes` of a default size, scaled to the budget (at least 1 MiB).
pub(crate) fn scaled(bytes: usize) -> usize {
    ((bytes as f64 * memory_share()) as usize).max(1 << 20)
}

/// Keeps glibc's reservations of address space near what is used: RocksDB's C++ allocates with
/// glibc's malloc, which gives each thread that allocates an arena of its own, reserving 64 MiB
/// apiece (two arenas suffice); threads started without a stack size (RocksDB's) take the stack
/// limit, 8 MiB apiece (2 MiB, as Rust's threads have). Affects the arenas and threads made
/// afterwards; the command line calls it before `main`, a budget when it is set.
pub fn limit_reservations() {
    // SAFETY: glibc's options are plain numbers read when it next reserves; the attributes are
    // initialised before they are read, and destroyed.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        let mut attributes = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
        if libc::pthread_attr_init(attributes.as_mut_ptr()) == 0 {
            if libc::pthread_attr_setstacksize(attributes.as_mut_ptr(), THREAD_STACK) == 0 {
                pthread_setattr_default_np(attributes.as_ptr());
            }
            libc::pthread_attr_destroy(attributes.as_mut_ptr());
        }
    }
}

/// The stack of a thread started without a size (RocksDB's), as Rust's default.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const THREAD_STACK: usize = 2 << 20;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    /// glibc's default attributes of new threads (since glibc 2.18; the libc crate names it not).
    fn pthread_setattr_default_np(attributes: *const libc::pthread_attr_t) -> libc::c_int;
}

/// A size in bytes: a number with an optional K, M, G or T suffix (powers of 1,024), e.g. 512M.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("{text:?} is not a size (e.g. 512M, 2G)")),
    };
    // Digits with at most one point: no sign, no exponent, no "inf".
    let number = number.trim();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(format!("{text:?} is not a size (e.g. 512M, 2G)"));
    }
    let value: f64 = number.parse().map_err(|_| format!("{text:?} is not a size (e.g. 512M, 2G)"))?;
    let bytes = value * (1u64 << shift) as f64;
    match (0.0..1e19).contains(&bytes) {
        true => Ok(bytes as u64),
        false => Err(format!("{text:?} is out of range")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_digits_and_a_unit() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        for bad in ["+512M", "-1G", "1e3M", "infM", "M", "lots", "2X"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }

    /// New threads started without a size take the 2 MiB set, not the stack limit.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn threads_started_without_a_size_take_two_mib() {
        limit_reservations();
        // SAFETY: reads the default attributes into initialised storage, then destroys them.
        let size = unsafe {
            let mut attributes = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
            assert_eq!(pthread_getattr_default_np(attributes.as_mut_ptr()), 0);
            let mut size = 0;
            libc::pthread_attr_getstacksize(attributes.as_ptr(), &mut size);
            libc::pthread_attr_destroy(attributes.as_mut_ptr());
            size
        };
        assert_eq!(size, THREAD_STACK);
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe extern "C" {
        fn pthread_getattr_default_np(attributes: *mut libc::pthread_attr_t) -> libc::c_int;
    }
}
