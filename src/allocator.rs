//! The process's heap: mimalloc for speed, glibc's malloc under a memory budget, and the
//! reservations of address space kept near what is used.
//!
//! mimalloc keeps every arena it reserves: freed pages go back to the system, their address
//! space does not. Under `--memory 256M` a players ingest held some 600 MiB of address space
//! for 300 MiB resident and aborted under limits of 640–700 MiB, wherever a commit's large
//! blocks found no hole. glibc's malloc gives large blocks back whole (they are mappings of
//! their own) and its arenas follow the heap: the same ingest runs under 448 MiB. So a budget,
//! where a user asked for memory over speed, switches the heap to glibc; without one, mimalloc
//! (7 % of the ingest's CPU less, docs/DECISIONS.md).

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicBool, Ordering},
};

use mimalloc::MiMalloc;

/// The heap of the process: mimalloc until [`bound_to_budget`], glibc's after.
pub struct Heap;

/// Whether new blocks come from glibc's malloc. Set once, never cleared: a block mimalloc gave
/// before is still freed by mimalloc (its page map knows it).
static SYSTEM: AtomicBool = AtomicBool::new(false);

/// Whether mimalloc gave `ptr`. Only asked once [`SYSTEM`] is set. Exact in mimalloc 3 (a
/// lookup of the 64 KiB slices its page map names); mimalloc 2 answered for any address in a
/// 32 MiB window holding one of its segments, which a test below refuses.
fn from_mimalloc(ptr: *mut u8) -> bool {
    // SAFETY: a lookup in mimalloc's page map; any address may be asked.
    unsafe { libmimalloc_sys::mi_is_in_heap_region(ptr.cast()) }
}

// SAFETY: each block is freed and resized by the allocator that gave it: mimalloc's before the
// switch, and after it whichever `from_mimalloc` names; both honour the layouts they are given.
unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            match SYSTEM.load(Ordering::Relaxed) {
                true => System.alloc(layout),
                false => MiMalloc.alloc(layout),
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            match SYSTEM.load(Ordering::Relaxed) {
                true => System.alloc_zeroed(layout),
                false => MiMalloc.alloc_zeroed(layout),
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on to the allocator that gave `ptr`.
        unsafe {
            match SYSTEM.load(Ordering::Relaxed) && !from_mimalloc(ptr) {
                true => System.dealloc(ptr, layout),
                false => MiMalloc.dealloc(ptr, layout),
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on; a block of mimalloc's moves to glibc's heap
        // through a copy of the bytes both blocks hold.
        unsafe {
            if !SYSTEM.load(Ordering::Relaxed) {
                return MiMalloc.realloc(ptr, layout, new_size);
            }
            if !from_mimalloc(ptr) {
                return System.realloc(ptr, layout, new_size);
            }
            let moved = System.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                MiMalloc.dealloc(ptr, layout);
            }
            moved
        }
    }
}

/// New blocks from glibc's malloc from now on (whose large blocks a budget maps apart,
/// [`tabiya::store::set_memory_budget`]).
pub fn bound_to_budget() {
    SYSTEM.store(true, Ordering::Relaxed);
}

/// mimalloc's `mi_option_purge_delay` (include/mimalloc.h), in milliseconds; -1: never.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps the pages mimalloc frees for the rest of the process, where it gives them back to the
/// system a second after: an ingest frees and allocates a batch's buffers (tens of MB) again and
/// again, and the kernel zeroes each page given back when it is used again (a players ingest's
/// system time 0.9–1.4 s, 0.7–0.8 s with its pages kept). For a command whose peak its own
/// bounds set (an ingest), not for a server, which would keep its peak for good.
pub fn keep_freed_pages() {
    // SAFETY: mimalloc's options are plain numbers read when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

/// Runs [`limit_reservations`] before anything allocates: Rust's runtime allocates before
/// `main`, and mimalloc reserved its first arena, a gigabyte, then.
#[cfg(all(target_os = "linux", not(test)))]
#[used]
#[unsafe(link_section = ".init_array")]
static LIMIT_RESERVATIONS: extern "C" fn() = limit_reservations;

/// mimalloc's `mi_option_arena_reserve` (include/mimalloc.h; the crate names no constant), in
/// KiB.
const MI_OPTION_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// Keeps the reservations of address space near what is used, so that a command runs under an
/// address-space limit: glibc's, which RocksDB's C++ and threads make
/// ([`tabiya::store::limit_reservations`]), and mimalloc's arenas, reserved 1 GiB at a time: 32
/// MiB.
extern "C" fn limit_reservations() {
    tabiya::store::limit_reservations();
    // SAFETY: mimalloc's options are plain numbers read when it next reserves.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_RESERVE, 32 << 10) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options set are the arenas' reservation, whose default is 1 GiB in KiB, and the
    /// purge delay, 1,000 ms by default (the indexes are an enum's places in mimalloc's header,
    /// which a new version could move). The test binary runs no constructor: the defaults are
    /// read before they are set.
    #[test]
    fn the_option_set_is_mimallocs_arena_reservation() {
        // SAFETY: reads an option.
        let reserve = || unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_RESERVE) };
        assert_eq!(reserve(), 1 << 20);
        limit_reservations();
        assert_eq!(reserve(), 32 << 10);
        // SAFETY: reads an option.
        let purge_delay = || unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(purge_delay(), 1000);
        keep_freed_pages();
        assert_eq!(purge_delay(), -1);
    }

    /// [`from_mimalloc`] is exact from mimalloc 3 on (the crate's `v2` feature would bring 2).
    #[test]
    fn mimalloc_is_version_3() {
        // SAFETY: reads a constant.
        let version = unsafe { libmimalloc_sys::mi_version() };
        assert!(version >= 30000, "mimalloc {version}");
    }

    /// Blocks of both allocators, given before and after the switch, freed and resized by the
    /// one that gave them, their bytes kept. (The switch is the process's: the test binary's
    /// heap switches too, and only this test makes it.)
    #[test]
    fn blocks_are_freed_and_resized_by_the_allocator_that_gave_them() {
        let heap = Heap;
        let fill = |ptr: *mut u8, len: usize, seed: u8| {
            // SAFETY: `ptr` holds `len` bytes.
            unsafe { (0..len).for_each(|at| *ptr.add(at) = seed.wrapping_add(at as u8)) }
        };
        let holds = |ptr: *mut u8, len: usize, seed: u8| {
            // SAFETY: `ptr` holds `len` bytes.
            unsafe { (0..len).all(|at| *ptr.add(at) == seed.wrapping_add(at as u8)) }
        };
        // SAFETY: every block is used within its layout and freed once with it.
        unsafe {
            let sizes = [24usize, 4096, 3 << 20];
            let before: Vec<(*mut u8, Layout)> = sizes
                .iter()
                .map(|&size| {
                    let layout = Layout::from_size_align(size, 16).unwrap();
                    let ptr = heap.alloc(layout);
                    fill(ptr, size, size as u8);
                    (ptr, layout)
                })
                .collect();
            assert!(before.iter().all(|&(ptr, _)| from_mimalloc(ptr)));
            bound_to_budget();
            let after = heap.alloc(Layout::from_size_align(100, 8).unwrap());
            assert!(!from_mimalloc(after), "a block after the switch is glibc's");
            fill(after, 100, 7);
            let grown = heap.realloc(after, Layout::from_size_align(100, 8).unwrap(), 5 << 20);
            assert!(holds(grown, 100, 7));
            heap.dealloc(grown, Layout::from_size_align(5 << 20, 8).unwrap());
            for (ptr, layout) in before {
                // A mimalloc block grown after the switch moves to glibc's heap, bytes kept.
                let size = layout.size();
                let moved = heap.realloc(ptr, layout, size * 2);
                assert!(!from_mimalloc(moved));
                assert!(holds(moved, size, size as u8));
                heap.dealloc(moved, Layout::from_size_align(size * 2, 16).unwrap());
            }
            let zeroed = heap.alloc_zeroed(Layout::from_size_align(1 << 16, 64).unwrap());
            assert!((0..1 << 16).all(|at| *zeroed.add(at) == 0));
            assert_eq!(zeroed as usize % 64, 0);
            heap.dealloc(zeroed, Layout::from_size_align(1 << 16, 64).unwrap());
        }
    }
}
