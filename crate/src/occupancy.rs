//! Which addresses are taken at some time during a lifetime, without visiting every placed buffer.
//!
//! A segment tree over the elementary time intervals. A placed buffer is recorded at the O(log n)
//! canonical nodes that tile its lifetime (`own`), and in the subtree union of those nodes and their
//! ancestors (`below`). The addresses taken during a lifetime are then the union of `below` of the
//! lifetime's canonical nodes and `own` of their proper ancestors: O(log n) coalesced interval sets
//! instead of every overlapping buffer (Y_1 has 180 million overlapping pairs). A buffer overlapping
//! the lifetime is recorded at a node that shares a leaf with one of its canonical nodes, so at a
//! descendant (in `below`) or an ancestor (in `own`) of it.
//!
//! The tree is cut at a level `top`: the nodes of that level (blocks of `2^top` leaves) are the
//! roots of a forest, and a lifetime's canonical nodes are those of each block it touches (a block
//! it covers whole is one). Two overlapping lifetimes share a leaf, so a block, within which the
//! rule above holds unchanged. On model traces (most lifetimes a few leaves, a few in a hundred
//! thousands of leaves long) the whole tree had every short lifetime write the subtree sets of a
//! dozen ancestors and read the own sets of as many, a cache miss each, for the sake of the few
//! long ones; cut at the level the lifetimes' lengths favour ([`choose_top`]), a long lifetime pays
//! for its length instead, once per block it covers.
//!
//! The greedy engine's placement rules and idealloc's squeeze (first fit, many times over the
//! same lifetimes through [`Routes`]) place buffers with it. A placement is never taken back, so a
//! search that backtracks keeps its own record (TelaMalloc's per-section layout).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::marker::PhantomData;

use crate::alignment::align_up;
use crate::options::{Deadline, Halt};

/// An address as an index stores it: u32 when every address of the plan stays below 4 GiB (half
/// the memory of u64: on 2·10^6-buffer traces the interval pool was most of a pass's heap, and
/// reading it most of its time), else u64. The interface speaks u64 throughout.
pub trait Address: Copy + Ord + Default + std::fmt::Debug + Send + Sync + 'static + zero::Bytes {
    /// The highest address the type holds: an index of it records no range ending above.
    const MAX: u64;
    /// `value` as this type; it must be at most [`Address::MAX`] (checked: a placement past it
    /// is refused with a panic rather than recorded wrapped).
    fn narrow(value: u64) -> Self;
    fn wide(self) -> u64;
    /// What a tree node's set holds inside itself before it moves its intervals to the pool:
    /// as many as fill a cache line with the set's header (see [`Node`]).
    type Inline: Inline<(Self, Self)>;
    /// What a leaf's set holds inside itself: fewer than a node's, as leaves are the most
    /// numerous sets and hold the fewest intervals (see [`LeafSet`]).
    type LeafInline: Inline<(Self, Self)>;
}

/// Types whose value of all-zero bytes is valid and is their default, so that an array of them
/// can come from the allocator zeroed: its pages are then untouched, not resident, until written
/// (an index over millions of times fills its sets window by window, and forgets them the same
/// way: see [`Occupancy::forget`]). Sealed: only the address types and the sets built of them.
mod zero {
    /// # Safety
    /// A value whose bytes are all zero must be valid and equal to the type's default.
    pub unsafe trait Bytes: Default {}
}

// SAFETY: plain integers; zero is their default.
unsafe impl zero::Bytes for u32 {}
// SAFETY: as for u32.
unsafe impl zero::Bytes for u64 {}
// SAFETY: a node is two sets, a set two u32 counts and intervals of addresses: all zero is an
// empty inline set, the default.
unsafe impl<A: Address> zero::Bytes for Node<A> {}
// SAFETY: as for a node's set.
unsafe impl<A: Address> zero::Bytes for LeafSet<A> {}

/// `len` defaults in zeroed memory from the global allocator, whose pages stay untouched (not
/// resident) until an element is written. (A `Vec` of an over-aligned type is zeroed by hand,
/// every page written, as the system allocator zeroes a block by itself only at its own
/// alignment: this array takes a block at that alignment and aligns the elements inside it.)
struct Zeroed<T> {
    block: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
    /// Where the elements start inside the block.
    offset: usize,
    len: usize,
    items: PhantomData<T>,
}

// SAFETY: the array owns its elements as a Vec does.
unsafe impl<T: Send> Send for Zeroed<T> {}
// SAFETY: as for Send.
unsafe impl<T: Sync> Sync for Zeroed<T> {}

impl<T: zero::Bytes + Copy> Zeroed<T> {
    fn new(len: usize) -> Self {
        let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
        let bytes =
            size.checked_mul(len).and_then(|b| b.checked_add(align)).expect("an index within the address space");
        let layout = std::alloc::Layout::from_size_align(bytes, std::mem::align_of::<u64>()).expect("a valid layout");
        // SAFETY: the layout's size is at least `align`, so not zero.
        let block = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(block) = std::ptr::NonNull::new(block) else { std::alloc::handle_alloc_error(layout) };
        let offset = block.as_ptr().align_offset(align);
        Zeroed { block, layout, offset, len, items: PhantomData }
    }
}

impl<T> std::ops::Deref for Zeroed<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` elements fit in the block past `offset` (`align` bytes were added for it),
        // aligned, and are initialised: zero bytes are a valid T (`zero::Bytes`, required to build).
        unsafe { std::slice::from_raw_parts(self.block.as_ptr().add(self.offset).cast::<T>(), self.len) }
    }
}

impl<T> std::ops::DerefMut for Zeroed<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, borrowed mutably through the array.
        unsafe { std::slice::from_raw_parts_mut(self.block.as_ptr().add(self.offset).cast::<T>(), self.len) }
    }
}

impl<T> Drop for Zeroed<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; the elements are Copy (`new`), nothing to drop.
        unsafe { std::alloc::dealloc(self.block.as_ptr(), self.layout) }
    }
}

/// Makes the memory pages under `items` resident and writable without changing a byte (Linux's
/// `MADV_POPULATE_WRITE`; elsewhere nothing). A zeroed page first read maps the system's shared
/// zero page, and the first write then copies it, which flushes the page's translation on every
/// core running a thread of the process (an interrupt to each, per page): readied first, a page
/// is read and written with no such flush.
fn populate<T>(items: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf reads a constant of the system.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
        let start = items.as_ptr() as usize;
        let end = start + std::mem::size_of_val(items);
        if page > 0 && start < end {
            let (low, high) = (start / page * page, end.next_multiple_of(page));
            // SAFETY: the pages hold part of `items`, borrowed mutably, so they are mapped; the
            // advice faults them in as a write would, and changes no byte (nor any byte of another
            // block sharing the first or last page). A failure only leaves them to fault later.
            unsafe { libc::madvise(low as *mut libc::c_void, high - low, libc::MADV_POPULATE_WRITE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}

/// Resets `items` to their defaults, giving the memory pages wholly inside them back to the
/// system (they read as zero bytes, the default, if touched again; on other targets every element
/// is written).
fn discard<T: zero::Bytes + Copy>(items: &mut [T]) {
    #[cfg(unix)]
    {
        let size = std::mem::size_of::<T>();
        // SAFETY: sysconf reads a constant of the system.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
        let start = items.as_ptr() as usize;
        let end = start + std::mem::size_of_val(items);
        if size > 0 && page > 0 {
            let (inner_start, inner_end) = (start.next_multiple_of(page), end / page * page);
            if inner_start < inner_end {
                // The elements with a byte outside the whole pages by hand, then the pages.
                let (first, last) = ((inner_start - start).div_ceil(size), (inner_end - start) / size);
                items[..first].fill(T::default());
                items[last..].fill(T::default());
                // SAFETY: the range lies inside `items`, borrowed mutably: nothing else reads it. The
                // global allocator's blocks are private anonymous memory, whose pages read as zero
                // bytes after MADV_DONTNEED, and zero bytes are the default of T (`zero::Bytes`).
                let done = unsafe {
                    libc::madvise(inner_start as *mut libc::c_void, inner_end - inner_start, libc::MADV_DONTNEED)
                };
                if done == 0 {
                    return;
                }
            }
        }
    }
    items.fill(T::default());
}

/// An array of intervals a [`Set`] holds inside itself.
pub trait Inline<T>: Copy + Default + std::fmt::Debug + Send + Sync + AsRef<[T]> + AsMut<[T]> {}

impl<T, const N: usize> Inline<T> for [T; N] where [T; N]: Copy + Default + std::fmt::Debug + Send + Sync {}

impl Address for u32 {
    const MAX: u64 = u32::MAX as u64;
    /// Seven intervals and the header: 64 bytes.
    type Inline = [(u32, u32); 7];
    /// Three intervals and the header: 32 bytes.
    type LeafInline = [(u32, u32); 3];

    #[inline]
    fn narrow(value: u64) -> Self {
        u32::try_from(value).expect("an address within the index's u32 range")
    }

    #[inline]
    fn wide(self) -> u64 {
        self as u64
    }
}

impl Address for u64 {
    const MAX: u64 = u64::MAX;
    /// Three intervals and the header: 56 bytes.
    type Inline = [(u64, u64); 3];
    /// One interval and the header: 24 bytes (32 aligned).
    type LeafInline = [(u64, u64); 1];

    #[inline]
    fn narrow(value: u64) -> Self {
        value
    }

    #[inline]
    fn wide(self) -> u64 {
        self
    }
}

/// An address interval `[low, high)`.
type Interval<A> = (A, A);

/// Disjoint address intervals, sorted and merged on insertion (touching ones too), as a view of a
/// node's [`Set`]. The sets are small (on Y_1 and 10^6-buffer traces the median holds 1–4
/// intervals, the largest a few hundred): binary search over a flat array beats a tree.
trait Intervals {
    /// The end of an interval meeting `[low, high)`, if any (the last one starting below `high`).
    fn blocking(&self, low: u64, high: u64) -> Option<u64>;
}

/// Sets up to this long are searched by a count (see [`rank`]). On 2·10^6-buffer traces the sets
/// at the forest's roots hold about a hundred intervals (the long lifetimes across the block) and
/// are read by every query below them: a binary search there waited on a cache miss at nearly
/// every step, while a count streams through the lines.
const LINEAR: usize = 128;

/// How many leading intervals satisfy `below` (a predicate true on a prefix): a count over short
/// sets, whose comparisons do not wait on each other as a binary search's do, else binary search.
fn rank<A: Address>(items: &[Interval<A>], below: impl Fn(&Interval<A>) -> bool) -> usize {
    if items.len() <= LINEAR {
        items.iter().map(|item| below(item) as usize).sum()
    } else {
        items.partition_point(below)
    }
}

impl<A: Address> Intervals for [Interval<A>] {
    fn blocking(&self, low: u64, high: u64) -> Option<u64> {
        let below = rank(self, |&(s, _)| s.wide() < high);
        match below.checked_sub(1).map(|i| self[i].1.wide()) {
            Some(e) if e > low => Some(e),
            _ => None,
        }
    }
}

/// One interval set. Short sets stay inside it (`I`: an array of intervals), so that reading one
/// reads the cache line of its node and no other; longer sets live in a block of the shared
/// [`Pool`] (one flat allocation for the whole index, no Vec per set). On 2·10^6-buffer traces
/// more than half of the sets a query reads hold 2 to 7 intervals: held inline (seven for u32
/// addresses, the whole node's line), the pool's miss per set read goes away for them. (Routed
/// sets, numerous and each read by few lifetimes, keep the one interval of the default.)
#[derive(Clone, Copy, Debug, Default)]
struct Set<A: Address, I = [Interval<A>; 1]> {
    len: u32,
    /// 0: the intervals are `items[..len]`; else they are in a pool block of `1 << class`
    /// intervals, which starts at `items[0].0` (the inline items are unused then).
    class: u32,
    items: I,
    address: PhantomData<A>,
}

/// The blocks of every set longer than it holds inline, by power-of-two capacity, with free lists.
#[derive(Debug, Default)]
struct Pool<A: Address> {
    intervals: Vec<Interval<A>>,
    free: Vec<Vec<u32>>,
}

/// The smallest block: sets that outgrow a single inline interval usually stay below four.
const FIRST_CLASS: u32 = 2;

impl<A: Address> Pool<A> {
    fn alloc(&mut self, class: u32) -> u32 {
        if let Some(block) = self.free.get_mut(class as usize).and_then(Vec::pop) {
            return block;
        }
        let block = self.intervals.len();
        let needed = 1usize << class;
        if self.intervals.capacity() - block < needed {
            // An eighth more at a time rather than double: on millions of buffers the pool is
            // most of the index, and a doubled Vec held up to twice what it used.
            self.intervals.reserve_exact(needed.max(block / 8));
        }
        self.intervals.resize(block + needed, Default::default());
        // Blocks are addressed by u32: 4 × 10^9 intervals is far beyond any index built here.
        u32::try_from(block).expect("interval pool below 2^32 entries")
    }

    fn release(&mut self, block: u32, class: u32) {
        if self.free.len() <= class as usize {
            self.free.resize(class as usize + 1, Vec::new());
        }
        self.free[class as usize].push(block);
    }

    fn clear(&mut self) {
        self.intervals.clear();
        self.free.iter_mut().for_each(Vec::clear);
    }
}

impl<A: Address, I: Inline<Interval<A>>> Set<A, I> {
    /// Gives the set's pool block, if it has one, back to the pool (the set itself is left as it
    /// is: the caller resets it).
    fn release(&self, pool: &mut Pool<A>) {
        if self.class != 0 {
            pool.release(self.block() as u32, self.class);
        }
    }

    /// Where the pool block starts (when `class > 0`).
    #[inline]
    fn block(&self) -> usize {
        self.items.as_ref()[0].0.wide() as usize
    }

    #[inline]
    fn view<'a>(&'a self, pool: &'a Pool<A>) -> &'a [Interval<A>] {
        if self.class == 0 {
            &self.items.as_ref()[..self.len as usize]
        } else {
            &pool.intervals[self.block()..][..self.len as usize]
        }
    }

    /// The first `len` places of wherever the intervals are (at most the capacity).
    #[inline]
    fn places<'a>(&'a mut self, pool: &'a mut Pool<A>, len: usize) -> &'a mut [Interval<A>] {
        if self.class == 0 {
            &mut self.items.as_mut()[..len]
        } else {
            let block = self.block();
            &mut pool.intervals[block..][..len]
        }
    }

    /// Adds `[low, high)`; false when the set held it already (and is unchanged). `high` must be
    /// at most [`Address::MAX`].
    fn insert(&mut self, pool: &mut Pool<A>, low: u64, high: u64) -> bool {
        let (low, high) = (A::narrow(low), A::narrow(high));
        let len = self.len as usize;
        let items = self.view(pool);
        // Intervals [first, last) overlap or touch [low, high]: they end at or above `low` (ends
        // are sorted too, as the intervals are disjoint) and start at or below `high`. (A scan
        // that stops there passes only the intervals below the new range, where two counts over
        // the whole set passed every interval twice.)
        let first = leading(items, |&(_, e)| e < low);
        let last = first + leading(&items[first..], |&(s, _)| s <= high);
        if first < last {
            let merged = (low.min(items[first].0), high.max(items[last - 1].1));
            if merged == items[first] && last == first + 1 {
                // (Sets high in the tree hold most new ranges already: no write at all.)
                return false;
            }
            let places = self.places(pool, len);
            places[first] = merged;
            // (Merging into one interval moves nothing: a copy of the tail onto itself was
            // most of an insert's time in long sets.)
            if last > first + 1 {
                places.copy_within(last.., first + 1);
                self.len -= (last - first - 1) as u32;
            }
            return true;
        }
        let inline = self.items.as_ref().len();
        let capacity = if self.class == 0 { inline } else { 1 << self.class };
        if len == capacity {
            // Full: the intervals move to a block twice as large (out of the set, the first time).
            let (class, block) = if self.class == 0 {
                let class = ((inline + 1).next_power_of_two().trailing_zeros()).max(FIRST_CLASS);
                let block = pool.alloc(class);
                pool.intervals[block as usize..][..len].copy_from_slice(&self.items.as_ref()[..len]);
                (class, block)
            } else {
                let (old, class) = (self.block(), self.class);
                let block = pool.alloc(class + 1);
                pool.intervals.copy_within(old..old + len, block as usize);
                pool.release(old as u32, class);
                (class + 1, block)
            };
            self.class = class;
            self.items.as_mut()[0].0 = A::narrow(block as u64);
        }
        let places = self.places(pool, len + 1);
        places.copy_within(first..len, first + 1);
        places[first] = (low, high);
        self.len += 1;
        true
    }
}

/// A tree node's two sets: the placements whose lifetime it tiles (`own`) and those recorded
/// anywhere in its subtree (`below`). A cache line each (u32 addresses), as a query reads one of
/// them and a placement writes one or both; the pair aligned together, so that a fetch of one
/// line brings its neighbour along where the processor pairs lines.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(128))]
struct Node<A: Address> {
    sets: [NodeSet<A>; 2],
}

/// A set of the tree, with the intervals that fit its cache line inline.
type NodeSet<A> = Set<A, <A as Address>::Inline>;

/// A leaf's subtree set, in half a cache line (u32 addresses): on 2·10^6-buffer traces nine
/// leaf sets in ten held at most three intervals, and the leaves, one per distinct time, were a
/// quarter of the index at a whole line each. Aligned so that no set straddles two lines.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(32))]
struct LeafSet<A: Address>(Set<A, <A as Address>::LeafInline>);

/// Which of a node's sets: a reference to one set is `node << 1 | slot`.
const OWN: u32 = 0;
const BELOW: u32 = 1;

/// The placed buffers, indexed by time for address queries over a lifetime.
pub struct Occupancy<A: Address = u64> {
    /// Distinct lifetime endpoints; leaf `i` is the time interval `[times[i], times[i + 1])`.
    times: Vec<u64>,
    /// Number of leaves, a power of two; node `1` is the root, leaf `i` is node `leaves + i`.
    leaves: usize,
    /// The level of the forest's roots (0: the leaves; `log2(leaves)`: the whole tree). No node
    /// above it holds a set.
    top: u32,
    /// The inner nodes from `1` up to the last ancestor of a used leaf (entry 0 unused; nodes
    /// over the padding past the last distinct time are never touched, so not kept).
    nodes: Zeroed<Node<A>>,
    /// Each used leaf's subtree set (the padding up to `leaves` keeps none). A leaf's own set
    /// would be read only by queries below it, and there are none: leaves keep one set, a
    /// [`LeafSet`] of a quarter of a node (on 10^6 leaves, 96 MiB less than a node each).
    leaf_sets: Zeroed<LeafSet<A>>,
    /// Bit per node: canonical for some lifetime given to `new` (only those nodes hold sets).
    canonical: Vec<u64>,
    /// The leaf range of each lifetime given to `new`, by position.
    spans: Vec<Span>,
    pool: Pool<A>,
    /// Scratch query for [`Occupancy::insert`].
    scratch: Query,
    /// The node and leaf arrays were left untouched (not resident) at build, for the caller to
    /// ready window by window ([`Occupancy::ready`]); else they were written whole at build.
    lazy: bool,
}

/// A lazy index's first pool block, in bytes: above the largest threshold (32 MiB on 64-bit
/// Linux) past which the system allocator maps a block by itself. Only address space until
/// written.
const POOL_MAPPED_BYTES: usize = 64 << 20;

/// Node and leaf arrays at least this large are left untouched at build when the caller readies
/// them window by window ([`Occupancy::build_windowed`]). Smaller ones are written whole, as a
/// `Vec` would be: many passes each building a small index on parallel threads gain nothing from
/// residency kept low, and every page given back or faulted in late costs them more. (The
/// library's own tests make every windowed index lazy, so that the small passes they run ready
/// and forget windows too; the integration tests run the threshold as shipped.)
const LAZY_BYTES: usize = if cfg!(test) { 0 } else { 64 << 20 };

/// The nodes of one lifetime and the sets to consult for it. Reuse one across buffers
/// ([`Occupancy::query_into`]) to save allocations; after a query, [`Occupancy::insert_queried`]
/// records a placement of that lifetime without finding its nodes again.
#[derive(Default)]
pub struct Query {
    /// Non-empty sets holding every address taken during the lifetime, as `node << 1 | slot`.
    sets: Vec<u32>,
    /// The canonical nodes tiling the lifetime, then (from `ancestors_from` on) their proper
    /// ancestors.
    nodes: Vec<u32>,
    ancestors_from: usize,
    /// The lifetime's leaf range (for [`Occupancy::insert_queried`]).
    span: Span,
}

/// A lifetime as the leaf range `[first, last)` it covers, from [`Occupancy::span`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Span {
    first: u32,
    last: u32,
}

/// Every lifetime's sets, listed once for placing the same lifetimes many times over (the
/// idealloc squeeze runs first fit about a hundred times per solve): the sets a query of the
/// lifetime reads and the sets a placement of it writes, as ids into [`RoutedSets`]. Only the sets
/// that some lifetime reads get an id (the rest would be written and never read), numbered in tree
/// order so that the much-read sets near the root share cache lines. Finding a lifetime's nodes
/// is a third of a query's work; random reads across the tree's empty nodes were another third.
#[derive(Debug, Default)]
pub struct Routes {
    /// Lifetime `i` reads `ids[from..middle]` and writes `ids[middle..to]`, for
    /// `[from, middle, to] = bounds[i]`.
    bounds: Vec<[u32; 3]>,
    ids: Vec<u32>,
    /// Per set id, how many of the lifetimes read it.
    readers: Vec<u32>,
}

impl Routes {
    /// The sets that together hold every address taken during lifetime `i` (some may be empty),
    /// and the sets that a placement during it must be recorded in.
    pub fn route(&self, i: usize) -> (&[u32], &[u32]) {
        let [from, middle, to] = self.bounds[i];
        (&self.ids[from as usize..middle as usize], &self.ids[middle as usize..to as usize])
    }

    /// How many of the lifetimes read each set, by set id.
    pub fn readers(&self) -> &[u32] {
        &self.readers
    }

    /// Empty sets for these routes, addresses stored as `A` (see [`Address`]).
    pub fn sets<A: Address>(&self) -> RoutedSets<A> {
        RoutedSets { sets: vec![Set::default(); self.readers.len()], pool: Pool::default() }
    }
}

/// The interval sets named by the ids of one [`Routes`]: placements and first-fit queries along
/// precomputed routes, with the same answers as [`Occupancy`] gives for the same placements.
/// Addresses are stored as `A`: u32 halves the sets' memory (the idealloc squeeze's, whose
/// interval pools were most of its heap on 2·10^6 buffers) while every top stays within 4 GiB.
#[derive(Debug, Default)]
pub struct RoutedSets<A: Address = u64> {
    sets: Vec<Set<A>>,
    pool: Pool<A>,
}

impl<A: Address> RoutedSets<A> {
    /// The highest address a placement recorded here may reach (see [`Address`]).
    pub const LIMIT: u64 = A::MAX;

    /// Forgets every placement, keeping the allocations.
    pub fn clear(&mut self) {
        self.sets.fill(Set::default());
        self.pool.clear();
    }

    /// Records addresses `[low, high)` in each of the sets `ids` (a route's writes, or some of
    /// them); `high` must be at most [`RoutedSets::LIMIT`].
    pub fn insert(&mut self, ids: impl Iterator<Item = u32>, low: u64, high: u64) {
        for id in ids {
            self.sets[id as usize].insert(&mut self.pool, low, high);
        }
    }

    /// [`Occupancy::lowest_fit_from`] over a route's reads.
    pub fn lowest_fit_from(&self, reads: &[u32], size: u64, alignment: u64, floor: u64) -> Option<u64> {
        lowest_fit_in(reads, |id| self.sets[id as usize].view(&self.pool), size, alignment, floor)
    }

    /// Asks for the cache lines of the sets `ids` ahead of a query or an insert that uses them
    /// (a hint: nothing is read). A set's intervals beyond its inline one live in the pool, on a
    /// line that only a second hint, once the set itself has arrived, can ask for: see
    /// [`RoutedSets::prefetch_spilled`].
    #[inline]
    pub fn prefetch(&self, ids: &[u32]) {
        for &id in ids {
            if let Some(set) = self.sets.get(id as usize) {
                prefetch(set);
            }
        }
    }

    /// Asks for the first pool line of each of the sets `ids` that keep their intervals in the
    /// pool (reading the sets: best once [`RoutedSets::prefetch`] brought them in).
    #[inline]
    pub fn prefetch_spilled(&self, ids: &[u32]) {
        for &id in ids {
            if let Some(set) = self.sets.get(id as usize)
                && set.class != 0
                && let Some(first) = self.pool.intervals.get(set.block())
            {
                prefetch(first);
            }
        }
    }

    /// True when some address in `[low, high)` is taken in one of a route's reads.
    pub fn is_taken(&self, reads: &[u32], low: u64, high: u64) -> bool {
        reads.iter().any(|&id| self.sets[id as usize].view(&self.pool).blocking(low, high).is_some())
    }
}

impl Occupancy {
    /// An empty index for placements and queries over these lifetimes (only these: the index
    /// keeps no sets at nodes that none of them needs).
    pub fn new(lifetimes: impl Iterator<Item = (u64, u64)>) -> Self {
        match Occupancy::build(lifetimes, &Deadline::none()) {
            Ok(occupancy) => occupancy,
            Err(_) => unreachable!("a deadline that never passes"),
        }
    }

    /// [`Occupancy::new`], stopping when `deadline` passes: on millions of lifetimes building the
    /// index takes long enough that a cancel must reach it.
    pub fn build(lifetimes: impl Iterator<Item = (u64, u64)>, deadline: &Deadline) -> Result<Self, Halt> {
        Occupancy::build_cut(lifetimes, deadline, None, usize::MAX)
    }
}

impl<A: Address> Occupancy<A> {
    /// The highest address a placement recorded here may reach (see [`Address`]).
    pub const LIMIT: u64 = A::MAX;

    /// [`Occupancy::build`] for addresses stored as `A`: every placement recorded must end at
    /// or below [`Occupancy::LIMIT`].
    pub fn build_narrow(lifetimes: impl Iterator<Item = (u64, u64)>, deadline: &Deadline) -> Result<Self, Halt> {
        Occupancy::build_cut(lifetimes, deadline, None, usize::MAX)
    }

    /// [`Occupancy::build_narrow`] for a caller that visits time window by window: a large
    /// index's node and leaf arrays stay untouched (not resident) until readied. Before a
    /// placement or query touches them, the caller calls [`Occupancy::ready_above`] once, then
    /// [`Occupancy::ready`] for each window as it reaches the window's first endpoint (or
    /// [`Occupancy::ready_all`]). On 2·10^6-buffer traces the arrays are 150 MiB, and with
    /// [`Occupancy::forget`] only the windows under way are resident.
    pub fn build_windowed(lifetimes: impl Iterator<Item = (u64, u64)>, deadline: &Deadline) -> Result<Self, Halt> {
        Occupancy::build_cut(lifetimes, deadline, None, LAZY_BYTES)
    }

    /// Whether the arrays wait to be readied (see [`Occupancy::build_windowed`]).
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// [`Occupancy::build`], cut at level `top` (at most the tree's height) instead of the level
    /// [`choose_top`] picks.
    fn build_cut(
        lifetimes: impl Iterator<Item = (u64, u64)>,
        deadline: &Deadline,
        top: Option<u32>,
        lazy_from: usize,
    ) -> Result<Self, Halt> {
        // Every endpoint with the lifetime it belongs to, sorted once: the distinct times and each
        // lifetime's leaf range come out of one pass over them. (Finding them by binary search,
        // as [`Occupancy::span`] does, cost two searches of an array of a million times per
        // query, a cache miss at nearly every step: most of a query's time on 10^6 buffers.)
        let endpoints = Endpoints::sorted(lifetimes, deadline)?;
        let mut times: Vec<u64> = Vec::new();
        let mut spans = vec![Span::default(); endpoints.len() / 2];
        endpoints.for_each(|time, slot| {
            if times.last() != Some(&time) {
                times.push(time);
            }
            // The time's rank among the distinct times: the leaf it starts (`partition_point`).
            let rank = (times.len() - 1) as u32;
            let span = &mut spans[(slot / 2) as usize];
            if slot % 2 == 0 { span.first = rank } else { span.last = rank }
        });
        drop(endpoints);
        times.shrink_to_fit();
        let leaves = times.len().saturating_sub(1).max(1).next_power_of_two();
        let top = top.map_or_else(|| choose_top(&spans, leaves), |top| top.min(leaves.trailing_zeros()));
        // Only the leaves between the lifetimes' endpoints and their ancestors are ever touched:
        // the arrays stop there rather than at the power of two (on 2·10^6-buffer traces a
        // fifteenth of them, 8 MiB, was padding).
        let used = times.len().saturating_sub(1).max(1);
        let inner = if leaves > 1 { ((leaves + used - 1) >> 1) + 1 } else { 1 };
        let mut occupancy = Occupancy {
            times,
            leaves,
            top,
            nodes: Zeroed::new(inner),
            leaf_sets: Zeroed::new(used),
            canonical: vec![0; (2 * leaves).div_ceil(64)],
            spans: Vec::new(),
            pool: Pool::default(),
            scratch: Query::default(),
            lazy: false,
        };
        let bytes = std::mem::size_of_val(&*occupancy.nodes) + std::mem::size_of_val(&*occupancy.leaf_sets);
        occupancy.lazy = bytes >= lazy_from;
        if occupancy.lazy && cfg!(target_os = "linux") {
            // The pool's first block large enough that the system allocator maps it by itself
            // (its pages resident only once written), so that it grows by remapping. Grown from
            // small, it moved out of the shared heap once, copied whole, and the old block stayed
            // resident beside the new: 33 MiB at the process's peak on 2·10^6-buffer traces.
            occupancy.pool.intervals.reserve_exact(POOL_MAPPED_BYTES / std::mem::size_of::<Interval<A>>());
        }
        if !occupancy.lazy {
            // Written before anything reads them (see `populate`): the zeroed pages would map the
            // shared zero page on a first read and be copied on the first write.
            occupancy.nodes.fill(Node::default());
            occupancy.leaf_sets.fill(LeafSet::default());
        }
        if let Some(stop) = deadline.expired() {
            return Err(stop);
        }
        let mut canonical = std::mem::take(&mut occupancy.canonical);
        for (step, &span) in spans.iter().enumerate() {
            deadline.poll(step)?;
            occupancy.for_each_canonical(span, |node| canonical[node / 64] |= 1 << (node % 64));
        }
        occupancy.canonical = canonical;
        occupancy.spans = spans;
        Ok(occupancy)
    }

    /// The leaf range `[first, last)` of the `k`-th lifetime given to `new` (leaves are the
    /// elementary time intervals between consecutive distinct endpoints).
    pub fn leaf_range(&self, k: usize) -> (u32, u32) {
        let span = self.spans[k];
        (span.first, span.last)
    }

    /// The number of leaves (elementary time intervals) of the lifetimes given to `new`.
    pub fn leaf_count(&self) -> u32 {
        // Fewer than 2^32, as in [`Occupancy::span`].
        self.times.len().saturating_sub(1) as u32
    }

    /// The leaf range of a lifetime. Its endpoints must have been given to `new`.
    fn span(&self, start: u64, end: u64) -> Span {
        // Leaves are fewer than 2^32: each is an interval between two of at most 2 × (2^32 − 1)
        // endpoints of a Problem, whose buffers are indexed by u32 elsewhere too.
        let first = self.times.partition_point(|&t| t < start) as u32;
        let last = self.times.partition_point(|&t| t < end) as u32;
        Span { first, last }
    }

    fn is_canonical_somewhere(&self, node: usize) -> bool {
        self.canonical[node / 64] >> (node % 64) & 1 == 1
    }

    /// Calls `visit` with each canonical node tiling the lifetime.
    fn for_each_canonical(&self, span: Span, visit: impl FnMut(usize)) {
        debug_assert!(span.first < span.last, "empty lifetime");
        tile(span, self.leaves, self.top, visit);
    }

    /// Fills `query.nodes` with the nodes to touch for the lifetime: the canonical nodes tiling it,
    /// then the nodes that overlap it only in part (exactly the proper ancestors of the canonical
    /// nodes). Ancestors that are canonical for no lifetime are left out: their own sets stay empty
    /// and their subtree sets are never read.
    fn collect_nodes(&self, span: Span, query: &mut Query) {
        query.nodes.clear();
        query.span = span;
        self.for_each_canonical(span, |node| {
            // Kept in release builds: a lifetime not given to `new` would read subtree sets that
            // skipped ancestors never filled, a silently wrong answer. A bit test per node is cheap.
            assert!(self.is_canonical_somewhere(node), "a lifetime not given to Occupancy::new");
            query.nodes.push(node as u32);
        });
        query.ancestors_from = query.nodes.len();
        // Node `low >> level` overlaps in part unless `low` is its first leaf; the same on the
        // right with `high`. When both name one node, visit it once.
        let (low, high) = (span.first as usize + self.leaves, span.last as usize + self.leaves);
        // (Nodes above the forest's roots hold nothing.)
        for level in 1..=self.top {
            let left = (low >> level != 0 && (low >> level) << level != low).then_some(low >> level);
            let right = ((high >> level) << level != high).then_some((high - 1) >> level);
            if let Some(node) = left
                && self.is_canonical_somewhere(node)
            {
                query.nodes.push(node as u32);
            }
            if let Some(node) = right
                && Some(node) != left
                && self.is_canonical_somewhere(node)
            {
                query.nodes.push(node as u32);
            }
        }
    }

    /// The [`Routes`] of the lifetimes given to `new`, by their position.
    pub fn routes(&self) -> Routes {
        // First as set references (`node << 1 | slot`), then renumbered in place: on millions of
        // buffers the references are most of what this builds, and idealloc builds it beside its
        // other arrays, so they are counted before they are stored and never copied.
        let mut query = Query::default();
        let mut total = 0usize;
        for &span in &self.spans {
            self.collect_nodes(span, &mut query);
            let (canonical, ancestors) = (query.ancestors_from, query.nodes.len() - query.ancestors_from);
            total += 3 * canonical + 2 * ancestors;
        }
        let mut bounds = Vec::with_capacity(self.spans.len());
        let mut references: Vec<u32> = Vec::with_capacity(total);
        for &span in &self.spans {
            self.collect_nodes(span, &mut query);
            let (canonical, ancestors) = query.nodes.split_at_mut(query.ancestors_from);
            // The widest canonical nodes first: their subtree sets cover the most, so first fit
            // tends to climb past the taken addresses in fewer, longer jumps (the answer does not
            // depend on the order).
            canonical.sort_unstable();
            let from = references.len() as u32;
            references.extend(canonical.iter().map(|&node| node << 1 | BELOW));
            references.extend(ancestors.iter().map(|&node| node << 1 | OWN));
            let middle = references.len() as u32;
            references.extend(canonical.iter().flat_map(|&node| [node << 1 | OWN, node << 1 | BELOW]));
            references.extend(ancestors.iter().map(|&node| node << 1 | BELOW));
            bounds.push([from, middle, references.len() as u32]);
        }
        // Each set's readers counted, then (in the same array) its id: only sets some route reads
        // get one.
        let mut id_of = vec![0u32; 4 * self.leaves];
        for &[from, middle, _] in &bounds {
            for &reference in &references[from as usize..middle as usize] {
                id_of[reference as usize] += 1;
            }
        }
        let mut readers = Vec::new();
        for slot in &mut id_of {
            if *slot > 0 {
                readers.push(*slot);
                *slot = (readers.len() - 1) as u32;
            } else {
                *slot = u32::MAX;
            }
        }
        // Renumbered in place: a route's ids are written at or before where its references are
        // read, since writes to sets nobody reads are dropped.
        let mut next = 0usize;
        for bound in &mut bounds {
            let [from, middle, to] = bound.map(|at| at as usize);
            let start = next;
            for at in from..middle {
                let id = id_of[references[at] as usize];
                references[next] = id;
                next += 1;
            }
            let reads_end = next;
            for at in middle..to {
                let id = id_of[references[at] as usize];
                if id != u32::MAX {
                    references[next] = id;
                    next += 1;
                }
            }
            *bound = [start as u32, reads_end as u32, next as u32];
        }
        references.truncate(next);
        references.shrink_to_fit();
        Routes { bounds, ids: references, readers }
    }

    /// Calls `with` on the set `reference` names, whichever kind of set it is (`None`: a leaf's
    /// own set, which stays empty).
    #[inline(always)]
    fn with_set<'a, R>(&'a self, reference: u32, with: impl SetVisitor<'a, A, R>) -> R {
        let node = (reference >> 1) as usize;
        match node.checked_sub(self.leaves) {
            None => with.visit(Some(&self.nodes[node].sets[(reference & 1) as usize])),
            Some(leaf) if reference & 1 == BELOW => with.visit(Some(&self.leaf_sets[leaf].0)),
            Some(_) => with.visit::<[Interval<A>; 1]>(None),
        }
    }

    #[inline(always)]
    fn view(&self, reference: u32) -> &[Interval<A>] {
        self.with_set(reference, View(&self.pool))
    }

    /// Asks for the cache line of the set `reference` names.
    #[inline(always)]
    fn prefetch_set(&self, reference: u32) {
        self.with_set(reference, Prefetch)
    }

    #[inline(always)]
    fn is_empty_set(&self, reference: u32) -> bool {
        self.with_set(reference, IsEmpty)
    }

    /// Forgets every placement, keeping the allocations for the next round of placements (the
    /// idealloc squeeze runs first fit many times over the same lifetimes).
    pub fn clear(&mut self) {
        self.nodes.fill(Node::default());
        self.leaf_sets.fill(LeafSet::default());
        self.pool.clear();
    }

    /// Forgets the sets that only lifetimes with an endpoint among leaves `[first, first + width)`
    /// read or write, for a caller done with every such lifetime: their memory goes back to the
    /// system and their pool blocks to the pool. `width` must be a power of two and `first` a
    /// multiple of it. A lifetime with no endpoint there still gets the answers it would have got:
    /// it touches a node inside the window only if the node is a forest root or the node's parent
    /// meets the lifetime in part (its proper ancestors and canonical nodes lie along its two
    /// ends), and the parent of a node below the window's level lies inside the window.
    ///
    /// (On 2·10^6-buffer traces the pass visits time window by window, and the sets of the windows
    /// it had left behind were most of the process's memory at its peak.)
    pub fn forget(&mut self, first: u32, width: u32) {
        for (level, window) in self.window(first, width) {
            let Occupancy { nodes, leaf_sets, pool, .. } = self;
            if level == 0 {
                leaf_sets[window.clone()].iter().for_each(|set| set.0.release(pool));
                discard(&mut leaf_sets[window]);
            } else {
                nodes[window.clone()].iter().flat_map(|node| &node.sets).for_each(|set| set.release(pool));
                discard(&mut nodes[window]);
            }
        }
    }

    /// The sets only lifetimes with an endpoint among leaves `[first, first + width)` touch (see
    /// [`Occupancy::forget`]), level by level: `(0, leaf set positions)`, then `(level, node
    /// positions)` for the levels above up to below the window's level or the forest's roots.
    fn window(&self, first: u32, width: u32) -> impl Iterator<Item = (u32, std::ops::Range<usize>)> + use<A> {
        debug_assert!(width.is_power_of_two() && first.is_multiple_of(width), "an aligned window");
        let levels = self.top.min(width.trailing_zeros());
        let (leaves, node_count, leaf_count) = (self.leaves, self.nodes.len(), self.leaf_sets.len());
        let (first, end) = (first as usize, first as usize + width as usize);
        (0..levels).map(move |level| {
            if level == 0 {
                (0, first.min(leaf_count)..end.min(leaf_count))
            } else {
                let base = leaves >> level;
                let (low, high) = (base + (first >> level), base + (end >> level));
                (level, low.min(node_count)..high.min(node_count))
            }
        })
    }

    /// Makes the sets of a window that [`Occupancy::forget`] would forget resident (a lazy
    /// index's; see [`Occupancy::build_windowed`]), for a caller about to place or query a
    /// lifetime with an endpoint among leaves `[first, first + width)`.
    pub fn ready(&mut self, first: u32, width: u32) {
        if self.lazy {
            for (level, window) in self.window(first, width) {
                if level == 0 { populate(&mut self.leaf_sets[window]) } else { populate(&mut self.nodes[window]) }
            }
        }
    }

    /// Makes the sets resident that no window of `width` leaves covers in [`Occupancy::ready`]:
    /// the nodes at and above the windows' level, or the forest's roots (a lazy index's).
    pub fn ready_above(&mut self, width: u32) {
        if self.lazy {
            match self.top.min(width.trailing_zeros()) {
                0 => self.ready_all(),
                level => {
                    // Level `level`'s nodes end where those of the level below begin.
                    let end = (self.leaves >> (level - 1)).min(self.nodes.len());
                    populate(&mut self.nodes[..end]);
                }
            }
        }
    }

    /// Makes every set resident (a lazy index's), for a pass that does not ready them by window.
    pub fn ready_all(&mut self) {
        if self.lazy {
            populate(&mut self.nodes);
            populate(&mut self.leaf_sets);
        }
    }

    /// Records addresses `[low, high)` as taken during `[start, end)` (`high` at most
    /// [`Occupancy::LIMIT`]).
    pub fn insert(&mut self, start: u64, end: u64, low: u64, high: u64) {
        let mut query = std::mem::take(&mut self.scratch);
        self.query_into(start, end, &mut query);
        self.insert_queried(&query, low, high);
        self.scratch = query;
    }

    /// Records addresses `[low, high)` as taken during the lifetime of the last query made with
    /// `query` (the placements since then do not matter); `high` at most [`Occupancy::LIMIT`].
    pub fn insert_queried(&mut self, query: &Query, low: u64, high: u64) {
        let Occupancy { nodes, leaf_sets, pool, leaves, .. } = self;
        let (canonical, ancestors) = query.nodes.split_at(query.ancestors_from);
        for &node in canonical {
            // (Only canonical nodes can be leaves: an ancestor has a subtree.)
            if let Some(leaf) = (node as usize).checked_sub(*leaves) {
                leaf_sets[leaf].0.insert(pool, low, high);
                continue;
            }
            let [own, below] = &mut nodes[node as usize].sets;
            own.insert(pool, low, high);
            below.insert(pool, low, high);
        }
        // The ancestors, level by level upwards, are those of the lifetime's first leaf (the
        // left chain) and of its last leaf (the right chain). A subtree set holds those of the
        // node's children, so once a node of a chain held the range already, every node above it
        // on that chain does too: it is neither searched nor written again.
        let depth = leaves.trailing_zeros();
        let (first, last) =
            ((query.span.first as usize + *leaves) as u32, (query.span.last as usize + *leaves - 1) as u32);
        let mut held = [false; 2];
        for &node in ancestors {
            let shift = depth - (31 - node.leading_zeros());
            let chains = [first >> shift == node, last >> shift == node];
            if (chains[0] && held[0]) || (chains[1] && held[1]) {
                continue;
            }
            if !nodes[node as usize].sets[BELOW as usize].insert(pool, low, high) {
                held[0] |= chains[0];
                held[1] |= chains[1];
            }
        }
    }

    /// The sets that together hold every address taken at some time in `[start, end)`.
    pub fn query(&self, start: u64, end: u64) -> Query {
        let mut query = Query::default();
        self.query_into(start, end, &mut query);
        query
    }

    /// [`Occupancy::query`] into an existing `Query`, reusing its storage.
    pub fn query_into(&self, start: u64, end: u64, query: &mut Query) {
        self.query_span(self.span(start, end), query);
    }

    /// [`Occupancy::query_into`] for the `k`-th lifetime given to `new`, without looking its
    /// endpoints up among the times.
    pub fn query_lifetime(&self, k: usize, query: &mut Query) {
        self.query_span(self.spans[k], query);
    }

    /// [`Occupancy::query_lifetime`] for the leaf range [`Occupancy::leaf_range`] gave for a
    /// lifetime (a caller that gathers them ahead reads them in its own order).
    pub fn query_leaves(&self, (first, last): (u32, u32), query: &mut Query) {
        self.query_span(Span { first, last }, query);
    }

    fn query_span(&self, span: Span, query: &mut Query) {
        self.collect_nodes(span, query);
        self.prefetch_nodes(query);
        self.keep_nonempty(query);
    }

    /// [`Occupancy::query_leaves`] in three steps, for a caller that queries lifetimes a few at a
    /// time ahead of their turn: this one finds the lifetime's nodes and asks for their cache
    /// lines; [`Occupancy::prefetch_spilled`] (once the lines are likely in) asks for the first
    /// pool line of each set that keeps its intervals there; [`Occupancy::finish_query`] makes
    /// the query. The steps only read, so placements may come between them (the hints may then
    /// point at lines a placement moved: they read nothing, so at worst they are wasted).
    ///
    /// (On 2·10^6-buffer traces a pass waited on memory at nearly every step: the node lines,
    /// then the pool blocks behind them, one lifetime after another. Asked for a few lifetimes
    /// ahead, the misses overlap the work of the steps before.)
    pub fn prepare_leaves(&self, (first, last): (u32, u32), query: &mut Query) {
        self.collect_nodes(Span { first, last }, query);
        self.prefetch_nodes(query);
    }

    /// Asks for the first pool line of each set of a prepared query's nodes (both slots: the one
    /// a query reads and the one a placement writes) that keeps its intervals in the pool. Reads
    /// the sets' headers: best once [`Occupancy::prepare_leaves`]'s lines have arrived.
    pub fn prefetch_spilled(&self, query: &Query) {
        for &node in &query.nodes {
            for slot in [OWN, BELOW] {
                self.with_set(node << 1 | slot, PrefetchSpilled(&self.pool));
            }
        }
    }

    /// Completes a query that [`Occupancy::prepare_leaves`] began: the same answers as
    /// [`Occupancy::query_leaves`] of the lifetime, as of the placements made so far.
    pub fn finish_query(&self, query: &mut Query) {
        self.keep_nonempty(query);
    }

    /// Asks for the lines of both sets of every node of a query (see [`Occupancy::query_span`]).
    fn prefetch_nodes(&self, query: &Query) {
        // Both sets of every node are asked for first, then read: the read set now, the other
        // (the own set of a canonical node, the subtree set of an ancestor) by the placement,
        // once the fit is found. Asked for together, their cache misses overlap, where a read
        // between two requests (and a mispredicted branch on what it read) held the next back.
        for (k, &node) in query.nodes.iter().enumerate() {
            let slot = if k < query.ancestors_from { BELOW } else { OWN };
            let reference = node << 1 | slot;
            self.prefetch_set(reference);
            self.prefetch_set(reference ^ 1);
        }
    }

    /// Lists the query's non-empty sets to read, from its nodes.
    fn keep_nonempty(&self, query: &mut Query) {
        // The non-empty sets, kept without a branch on each one's length.
        query.sets.clear();
        query.sets.resize(query.nodes.len(), 0);
        let mut kept = 0;
        for (k, &node) in query.nodes.iter().enumerate() {
            let slot = if k < query.ancestors_from { BELOW } else { OWN };
            let reference = node << 1 | slot;
            query.sets[kept] = reference;
            kept += !self.is_empty_set(reference) as usize;
        }
        query.sets.truncate(kept);
    }

    /// The lowest `offset >= 0`, a multiple of `alignment`, with `[offset, offset + size)` free.
    /// `None` when it would pass u64.
    ///
    /// Each set that lets a candidate pass also says where its next interval starts; it cannot
    /// block any higher candidate whose top stays below that, so after a jump only the sets whose
    /// next interval is now in reach are searched again (not every set, as a plain round robin
    /// would).
    pub fn lowest_fit(&self, query: &Query, size: u64, alignment: u64) -> Option<u64> {
        self.lowest_fit_from(query, size, alignment, 0)
    }

    /// [`Occupancy::lowest_fit`] at or above `floor` (a start address: the space below it need not
    /// be recorded as taken over every lifetime).
    pub fn lowest_fit_from(&self, query: &Query, size: u64, alignment: u64, floor: u64) -> Option<u64> {
        lowest_fit_in(&query.sets, |set| self.view(set), size, alignment, floor)
    }

    /// True when some address in `[low, high)` is taken during the lifetime.
    pub fn is_taken(&self, query: &Query, low: u64, high: u64) -> bool {
        query.sets.iter().any(|&set| self.view(set).blocking(low, high).is_some())
    }

    /// Every free gap `[low, high)` in address order; the last is `[low, None)`, open above.
    /// A k-way merge of the sets' intervals by start: O(intervals × log sets).
    pub fn gaps(&self, query: &Query, mut visit: impl FnMut(u64, Option<u64>)) {
        let mut cursors: Vec<_> = query.sets.iter().map(|&set| self.view(set).iter()).collect();
        let mut heads: BinaryHeap<Reverse<(u64, u64, usize)>> = BinaryHeap::with_capacity(cursors.len());
        for (k, cursor) in cursors.iter_mut().enumerate() {
            if let Some(&(low, high)) = cursor.next() {
                heads.push(Reverse((low.wide(), high.wide(), k)));
            }
        }
        let mut covered = 0u64;
        while let Some(Reverse((low, high, k))) = heads.pop() {
            if low > covered {
                visit(covered, Some(low));
            }
            covered = covered.max(high);
            if let Some(&(low, high)) = cursors[k].next() {
                heads.push(Reverse((low.wide(), high.wide(), k)));
            }
        }
        visit(covered, None);
    }

    /// The highest address taken during the lifetime (0 when nothing is).
    pub fn highest(&self, query: &Query) -> u64 {
        query.sets.iter().map(|&set| self.view(set).last().map_or(0, |&(_, e)| e.wide())).max().unwrap_or(0)
    }
}

/// Every endpoint of some lifetimes as (time, slot), sorted: lifetime `k` has slots `2k` (its
/// start) and `2k + 1` (its end). While every time fits in 32 bits an endpoint is one u64,
/// `time << 32 | slot`: half the bytes of the pair and one comparison to sort (on 2·10^6 buffers
/// the sort of pairs was 4 % of an SLFF solve).
enum Endpoints {
    Packed(Vec<u64>),
    Pairs(Vec<(u64, u32)>),
}

impl Endpoints {
    fn sorted(lifetimes: impl Iterator<Item = (u64, u64)>, deadline: &Deadline) -> Result<Self, Halt> {
        let mut endpoints = Endpoints::Packed(Vec::new());
        for (k, (start, end)) in lifetimes.enumerate() {
            // Lifetimes are numbered by u32, as buffers are in the rest of the crate.
            let slot = u32::try_from(2 * k + 1).expect("fewer than 2^31 lifetimes");
            if let Endpoints::Packed(packed) = &endpoints
                && start.max(end) > u32::MAX as u64
            {
                // A time past 32 bits: the endpoints so far become pairs.
                endpoints = Endpoints::Pairs(packed.iter().map(|&p| (p >> 32, p as u32)).collect());
            }
            match &mut endpoints {
                Endpoints::Packed(packed) => packed.extend([start << 32 | (slot - 1) as u64, end << 32 | slot as u64]),
                Endpoints::Pairs(pairs) => pairs.extend([(start, slot - 1), (end, slot)]),
            }
        }
        if let Some(stop) = deadline.expired() {
            return Err(stop);
        }
        match &mut endpoints {
            Endpoints::Packed(packed) => sort_packed(packed),
            Endpoints::Pairs(pairs) => pairs.sort_unstable(),
        }
        if let Some(stop) = deadline.expired() {
            return Err(stop);
        }
        Ok(endpoints)
    }

    fn len(&self) -> usize {
        match self {
            Endpoints::Packed(packed) => packed.len(),
            Endpoints::Pairs(pairs) => pairs.len(),
        }
    }

    /// Calls `visit(time, slot)` for each endpoint, in order.
    fn for_each(&self, mut visit: impl FnMut(u64, u32)) {
        match self {
            Endpoints::Packed(packed) => packed.iter().for_each(|&p| visit(p >> 32, p as u32)),
            Endpoints::Pairs(pairs) => pairs.iter().for_each(|&(time, slot)| visit(time, slot)),
        }
    }
}

/// Packed endpoints from this many on are sorted by radix ([`sort_packed`]); fewer, by
/// comparison, whose cost then is below the radix sort's fixed one (its digit counts).
const RADIX_FROM: usize = 1 << 16;

/// The bits of the time [`sort_packed`] sorts by at each pass: 2,048 counts, which stay in the
/// first-level cache, and two passes for times below 2^22.
const DIGIT_BITS: u32 = 11;

/// Sorts packed endpoints (`time << 32 | slot`, listed by ascending slot) into ascending order, as
/// `sort_unstable` would: a stable radix sort by the time alone, least significant digit first,
/// leaves equal times in the slots' order. (On 2·10^6-buffer traces, two passes over the
/// 4·10^6 endpoints in place of a comparison sort's twenty-odd levels.)
fn sort_packed(packed: &mut Vec<u64>) {
    debug_assert!(packed.windows(2).all(|pair| pair[0] as u32 <= pair[1] as u32), "slots ascending");
    if packed.len() < RADIX_FROM {
        packed.sort_unstable();
        return;
    }
    let latest = packed.iter().map(|&p| p >> 32).max().unwrap_or(0);
    let bits = u64::BITS - latest.leading_zeros();
    let mask = (1u64 << DIGIT_BITS) - 1;
    let mut scratch = vec![0u64; packed.len()];
    let mut shift = 32;
    while shift < 32 + bits {
        let digit = |p: u64| ((p >> shift) & mask) as usize;
        let mut starts = [0usize; 1 << DIGIT_BITS];
        for &p in packed.iter() {
            starts[digit(p)] += 1;
        }
        let mut sum = 0;
        for start in &mut starts {
            (*start, sum) = (sum, sum + *start);
        }
        for &p in packed.iter() {
            let at = &mut starts[digit(p)];
            scratch[*at] = p;
            *at += 1;
        }
        std::mem::swap(packed, &mut scratch);
        shift += DIGIT_BITS;
    }
}

/// The canonical nodes tiling the leaf range `span` in a tree of `leaves` leaves cut at level
/// `top`: bottom-up as in any segment tree up to that level, then every node of it that the range
/// still spans (whole blocks).
fn tile(span: Span, leaves: usize, top: u32, mut visit: impl FnMut(usize)) {
    let (mut l, mut h) = (span.first as usize + leaves, span.last as usize + leaves);
    let mut level = 0;
    while l < h && level < top {
        if l & 1 == 1 {
            visit(l);
            l += 1;
        }
        if h & 1 == 1 {
            h -= 1;
            visit(h);
        }
        l >>= 1;
        h >>= 1;
        level += 1;
    }
    (l..h).for_each(visit);
}

/// How many lifetimes [`choose_top`] looks at: enough for a stable estimate, few enough that
/// trying every level costs nothing next to building the index.
const TOP_SAMPLE: usize = 4096;

/// The level at which to cut the tree for these lifetimes (see the module note): the one with the
/// least estimated work per placement over an even sample of them. A placement writes both sets
/// of each canonical node and the subtree set of each proper ancestor, and its query reads one set
/// of each: 3 per canonical node, 2 per ancestor.
fn choose_top(spans: &[Span], leaves: usize) -> u32 {
    let levels = leaves.trailing_zeros();
    let step = spans.len().div_ceil(TOP_SAMPLE).max(1);
    let sample: Vec<Span> = spans.iter().step_by(step).copied().filter(|s| s.first < s.last).collect();
    let cost = |top: u32| -> u64 {
        let mut total = 0u64;
        for &span in &sample {
            let mut canonical = 0u64;
            tile(span, leaves, top, |_| canonical += 1);
            // Proper ancestors up to `top`: per level, the partly covered node at each end.
            let (low, high) = (span.first as usize + leaves, span.last as usize + leaves);
            let mut ancestors = 0u64;
            for level in 1..=top {
                let left = ((low >> level) << level != low).then_some(low >> level);
                let right = ((high >> level) << level != high).then_some((high - 1) >> level);
                ancestors += left.is_some() as u64 + (right.is_some() && right != left) as u64;
            }
            total += 3 * canonical + 2 * ancestors;
        }
        total
    };
    // The highest level among the cheapest: lifetimes that gain nothing keep the whole tree.
    (0..=levels).rev().min_by_key(|&top| cost(top)).unwrap_or(levels)
}

/// The lowest `offset >= floor`, a multiple of `alignment`, with `[offset, offset + size)` free in
/// the union of `sets` (each read through `view`), or `None` past u64.
///
/// Each set that lets a candidate pass also says where its next interval starts; it cannot block
/// any higher candidate whose top stays below that, so after a jump only the sets whose next
/// interval is now in reach are searched again (not every set, as a plain round robin would).
/// The candidate only rises, so each set is searched from where its last search stopped: over a
/// query, a set's intervals below the answer are passed once, not once per search of it (a count
/// over the whole set at each search was most of a query's comparisons on 2·10^6 buffers).
fn lowest_fit_in<'a, A: Address>(
    sets: &[u32],
    view: impl Fn(u32) -> &'a [Interval<A>],
    size: u64,
    alignment: u64,
    floor: u64,
) -> Option<u64> {
    let offset = align_up(floor, alignment)?;
    if sets.is_empty() {
        return offset.checked_add(size).map(|_| offset);
    }
    // Per set: addresses below `free_until` are free of it above the candidate (0: not asked
    // yet), and every interval before `cursor` ends at or below the candidate. On the stack in
    // an array no longer than needed: most routes read a few sets, and zeroing a long array at
    // every query is a call of its own in wasm (`memory.fill`), where native code zeroes it in a
    // few vector stores.
    if sets.len() <= SHORT_ROUTE {
        let mut state = [(0u64, 0u32); SHORT_ROUTE];
        lowest_fit_with(sets, &view, size, alignment, offset, &mut state[..sets.len()])
    } else if sets.len() <= LONG_ROUTE {
        let mut state = [(0u64, 0u32); LONG_ROUTE];
        lowest_fit_with(sets, &view, size, alignment, offset, &mut state[..sets.len()])
    } else {
        lowest_fit_with(sets, &view, size, alignment, offset, &mut vec![(0, 0); sets.len()])
    }
}

/// The routes whose search state [`lowest_fit_in`] keeps in a short array, a long one, or a Vec.
const SHORT_ROUTE: usize = 16;
const LONG_ROUTE: usize = 64;

/// [`lowest_fit_in`] from the aligned `offset`, with one `state` per set (zeroed).
#[inline(never)]
fn lowest_fit_with<'a, A: Address>(
    sets: &[u32],
    view: &impl Fn(u32) -> &'a [Interval<A>],
    size: u64,
    alignment: u64,
    mut offset: u64,
    state: &mut [(u64, u32)],
) -> Option<u64> {
    // The sets are asked in turn, round and round, until all of them in a row let the
    // candidate pass. The answer does not depend on the order: a jump to the end of a blocking
    // interval never passes a free offset.
    let mut top = offset.checked_add(size)?;
    let (mut k, mut passed) = (0, 0);
    while passed < sets.len() {
        let (free_until, cursor) = &mut state[k];
        if *free_until >= top {
            passed += 1;
        } else {
            let items = view(sets[k]);
            let at = *cursor as usize + leading(&items[*cursor as usize..], |&(_, e)| e.wide() <= offset);
            // `items[at]` is the first interval ending above the candidate: it blocks when it
            // starts below the top, and then so may the ones after it; the jump goes past the
            // last of them that starts below the top.
            match items.get(at) {
                Some(&(start, _)) if start.wide() < top => {
                    let last = at + leading(&items[at + 1..], |&(s, _)| s.wide() < top);
                    offset = align_up(items[last].1.wide(), alignment)?;
                    top = offset.checked_add(size)?;
                    // Every interval of this set up to the blocking one ends at or below the
                    // new candidate.
                    *free_until = items.get(last + 1).map_or(u64::MAX, |&(s, _)| s.wide());
                    *cursor = (last + 1) as u32;
                    passed = 0;
                }
                next => {
                    *free_until = next.map_or(u64::MAX, |&(s, _)| s.wide());
                    *cursor = at as u32;
                    passed += 1;
                }
            }
        }
        k += 1;
        if k == sets.len() {
            k = 0;
        }
    }
    Some(offset)
}

/// What [`Occupancy::with_set`] does with a set of either kind (node or leaf): a generic
/// function over the inline capacity, which a closure cannot be.
trait SetVisitor<'a, A: Address, R> {
    fn visit<I: Inline<Interval<A>>>(self, set: Option<&'a Set<A, I>>) -> R;
}

/// A set's intervals.
struct View<'a, A: Address>(&'a Pool<A>);

impl<'a, A: Address> SetVisitor<'a, A, &'a [Interval<A>]> for View<'a, A> {
    #[inline(always)]
    fn visit<I: Inline<Interval<A>>>(self, set: Option<&'a Set<A, I>>) -> &'a [Interval<A>] {
        set.map_or(&[], |set| set.view(self.0))
    }
}

/// A prefetch of a set's line.
struct Prefetch;

impl<'a, A: Address> SetVisitor<'a, A, ()> for Prefetch {
    #[inline(always)]
    fn visit<I: Inline<Interval<A>>>(self, set: Option<&'a Set<A, I>>) {
        if let Some(set) = set {
            prefetch(set);
        }
    }
}

/// A prefetch of the first pool line of a set that keeps its intervals in the pool.
struct PrefetchSpilled<'a, A: Address>(&'a Pool<A>);

impl<'a, A: Address> SetVisitor<'a, A, ()> for PrefetchSpilled<'a, A> {
    #[inline(always)]
    fn visit<I: Inline<Interval<A>>>(self, set: Option<&'a Set<A, I>>) {
        if let Some(set) = set
            && set.class != 0
            && let Some(first) = self.0.intervals.get(set.block())
        {
            prefetch(first);
        }
    }
}

/// Whether a set holds nothing (read from its header alone).
struct IsEmpty;

impl<'a, A: Address> SetVisitor<'a, A, bool> for IsEmpty {
    #[inline(always)]
    fn visit<I: Inline<Interval<A>>>(self, set: Option<&'a Set<A, I>>) -> bool {
        set.is_none_or(|set| set.len == 0)
    }
}

/// Asks for the cache line holding `value` ahead of its use (a hint: it reads nothing).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64, and a prefetch neither reads nor faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// How many leading intervals satisfy `below` (a predicate true on a prefix), for a search that
/// passes few of them at a time: a scan that stops at the first one outside, which turns to a
/// binary search after [`LINEAR`] of them.
#[inline]
fn leading<A: Address>(items: &[Interval<A>], below: impl Fn(&Interval<A>) -> bool) -> usize {
    let mut at = 0;
    while at < items.len() && below(&items[at]) {
        at += 1;
        if at == LINEAR {
            return at + items[at..].partition_point(below);
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The radix sort of packed endpoints gives the comparison sort's order: many endpoints
    /// (past the radix threshold) at times crowded together (many ties) or spread up to 2^32 − 1
    /// (three digits), listed by slot as the index lists them.
    #[test]
    fn packed_endpoints_sort_as_a_comparison_sort_does() {
        let mut random = crate::test_support::Lcg::new(5);
        for spread in [1u64, 40, 1 << 20, u32::MAX as u64 + 1] {
            let packed: Vec<u64> = (0..RADIX_FROM as u64 + 999).map(|slot| random.below(spread) << 32 | slot).collect();
            let mut expected = packed.clone();
            expected.sort_unstable();
            let mut sorted = packed;
            sort_packed(&mut sorted);
            assert_eq!(sorted, expected, "times below {spread}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// Cut at any level, the index answers as a scan of the placed rectangles does: random
        /// lifetimes (some long), placed in turn by first fit at random alignments and floors,
        /// each answer (first fit, the highest taken address, whether a range is taken, the free
        /// gaps) checked against the scan before the placement is made. Addresses are stored as
        /// u64 and as u32, low or up against the type's limit.
        #[test]
        fn every_cut_answers_as_a_scan_of_the_placements(
            raw in prop::collection::vec((0u64..300, 1u64..12, 0u32..8, 1u64..9, 0u32..3), 1..120),
            cut in 0u32..12,
            high in any::<bool>(),
            far in any::<bool>(),
        ) {
            answers_as_a_scan::<u64>(&raw, cut, high, far)?;
            answers_as_a_scan::<u32>(&raw, cut, high, far)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// Sets holding 1, 3 or 7 intervals inline, u32 and u64, several sharing one pool (so
        /// that freed blocks are reused), hold what a plain merge of the inserted ranges holds,
        /// and say that nothing changed exactly when a held interval covered the range already.
        #[test]
        fn sets_hold_the_merged_ranges_at_any_inline_capacity(
            ranges in prop::collection::vec((0usize..4, 0u64..400, 1u64..30), 1..300),
            high in any::<bool>(),
        ) {
            sets_merge_as_a_plain_list::<u32, [(u32, u32); 1]>(&ranges, high)?;
            sets_merge_as_a_plain_list::<u32, [(u32, u32); 3]>(&ranges, high)?;
            sets_merge_as_a_plain_list::<u32, <u32 as Address>::Inline>(&ranges, high)?;
            sets_merge_as_a_plain_list::<u64, [(u64, u64); 1]>(&ranges, high)?;
            sets_merge_as_a_plain_list::<u64, <u64 as Address>::Inline>(&ranges, high)?;
        }
    }

    /// The body of [`sets_hold_the_merged_ranges_at_any_inline_capacity`]: `(set, low, length)`
    /// inserted in turn, at addresses near 0 or (`high`) just below [`Address::MAX`].
    fn sets_merge_as_a_plain_list<A: Address, I: Inline<Interval<A>>>(
        ranges: &[(usize, u64, u64)],
        high: bool,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let base = if high { A::MAX - 512 } else { 0 };
        let mut pool = Pool::<A>::default();
        let mut sets = [Set::<A, I>::default(); 4];
        let mut plain: [Vec<(u64, u64)>; 4] = Default::default();
        for &(k, low, length) in ranges {
            let (low, high) = (base + low, base + low + length);
            let held = plain[k].iter().any(|&(s, e)| s <= low && high <= e);
            // The naive merge: every interval meeting or touching the range joins it.
            let (mut merged, mut rest) = ((low, high), Vec::new());
            for &(s, e) in &plain[k] {
                if e < low || high < s {
                    rest.push((s, e));
                } else {
                    merged = (merged.0.min(s), merged.1.max(e));
                }
            }
            rest.push(merged);
            rest.sort_unstable();
            plain[k] = rest;
            prop_assert_eq!(sets[k].insert(&mut pool, low, high), !held);
            for (set, plain) in sets.iter().zip(&plain) {
                let view: Vec<(u64, u64)> = set.view(&pool).iter().map(|&(s, e)| (s.wide(), e.wide())).collect();
                prop_assert_eq!(&view, plain);
            }
        }
        Ok(())
    }

    /// The body of [`every_cut_answers_as_a_scan_of_the_placements`] for addresses stored as `A`,
    /// all of them below `A::MAX − 4096` or (`high`) above it. When `far`, every other lifetime
    /// is moved to times about 2^32, some across it (the index then sorts its endpoints as pairs,
    /// not packed in a u64).
    fn answers_as_a_scan<A: Address>(
        raw: &[(u64, u64, u32, u64, u32)],
        cut: u32,
        high: bool,
        far: bool,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let lifetimes: Vec<(u64, u64)> = raw
            .iter()
            .enumerate()
            .map(|(k, &(start, length, class, _, _))| {
                let start = if far && k % 2 == 1 { start + (1 << 32) - 200 } else { start };
                (start, start + if class == 0 { length * 25 } else { length })
            })
            .collect();
        let mut occupancy =
            Occupancy::<A>::build_cut(lifetimes.iter().copied(), &Deadline::none(), Some(cut), usize::MAX).unwrap();
        let base = if high { Occupancy::<A>::LIMIT - 4096 } else { 0 };
        let mut placed: Vec<(u64, u64, u64, u64)> = Vec::new();
        let taken = |placed: &[(u64, u64, u64, u64)], (s, e): (u64, u64), low: u64, high: u64| {
            placed.iter().any(|&(ps, pe, pl, ph)| ps < e && s < pe && pl < high && low < ph)
        };
        let mut query = Query::default();
        for (k, &(_, _, _, size, align)) in raw.iter().enumerate() {
            let lifetime = lifetimes[k];
            let alignment = 1u64 << align;
            let floor = base + (k as u64 * 7) % 5;
            occupancy.query_lifetime(k, &mut query);
            let expected = (align_up(floor, alignment).unwrap()..)
                .step_by(alignment as usize)
                .find(|&x| !taken(&placed, lifetime, x, x + size))
                .unwrap();
            prop_assert_eq!(occupancy.lowest_fit_from(&query, size, alignment, floor), Some(expected));
            let (s, e) = lifetime;
            let highest = placed.iter().filter(|p| p.0 < e && s < p.1).map(|p| p.3).max().unwrap_or(0);
            prop_assert_eq!(occupancy.highest(&query), highest);
            prop_assert_eq!(
                occupancy.is_taken(&query, 0, expected + size),
                taken(&placed, lifetime, 0, expected + size)
            );
            let mut gaps = Vec::new();
            occupancy.gaps(&query, |low, high| gaps.push((low, high)));
            for &(low, high) in &gaps {
                let high = high.unwrap_or(low + 1);
                prop_assert!(low == high || !taken(&placed, lifetime, low, high), "gap [{}, {}) is free", low, high);
            }
            prop_assert_eq!(gaps.last().map(|g| g.0), Some(highest), "the open gap starts at the top");
            occupancy.insert_queried(&query, expected, expected + size);
            placed.push((s, e, expected, expected + size));
        }
        Ok(())
    }

    /// Mostly short lifetimes with a few very long ones cut the tree below its root; lifetimes
    /// that span the whole timeline keep it whole (its root tiles each).
    #[test]
    fn the_cut_follows_the_lifetimes() {
        let mut lifetimes: Vec<(u64, u64)> = (0..20_000u64).map(|i| (i, i + 1 + i % 7)).collect();
        lifetimes.extend((0..200u64).map(|i| (i * 100, i * 100 + 2_000)));
        let mixed = Occupancy::new(lifetimes.iter().copied());
        assert!(mixed.top < mixed.leaves.trailing_zeros() && mixed.top > 0, "cut at {}", mixed.top);
        let uniform = Occupancy::new((0..64u64).map(|i| (0, 64 + i % 2)));
        assert_eq!(uniform.top, uniform.leaves.trailing_zeros());
    }

    /// Once a window is forgotten, lifetimes with no endpoint in it get the answers an index that
    /// forgot nothing gives, placed and queried in turn; the forgotten sets read empty. (Windows
    /// over a whole page of sets give their pages back; smaller ones are reset by hand. Windows
    /// are readied again and again, over sets already written.)
    #[test]
    fn a_forgotten_window_leaves_the_other_lifetimes_answers() {
        let mut random = crate::test_support::Lcg::new(11);
        let lifetimes: Vec<(u64, u64)> = (0..6_000)
            .map(|k| {
                let start = random.below(4_000);
                let length = if k % 50 == 0 { 500 + random.below(3_000) } else { 1 + random.below(12) };
                (start, start + length)
            })
            .collect();
        for (cut, width) in [(Some(6), 64u32), (Some(12), 512), (None, 1024)] {
            // The forgetting index lazy (its arrays readied window by window, as a windowed pass
            // does: readying must change no set), the other written whole.
            let build =
                |lazy_from| Occupancy::<u32>::build_cut(lifetimes.iter().copied(), &Deadline::none(), cut, lazy_from);
            let (mut forgetting, mut whole) = (build(0).unwrap(), build(usize::MAX).unwrap());
            assert!(forgetting.is_lazy() && !whole.is_lazy());
            forgetting.ready_above(width);
            assert!(forgetting.top > 0, "cut at {}", forgetting.top);
            let windows = forgetting.leaf_count().div_ceil(width);
            let spans: Vec<(u32, u32)> = (0..lifetimes.len()).map(|k| forgetting.leaf_range(k)).collect();
            let touches = |k: usize, window: u32| [spans[k].0 / width, (spans[k].1 - 1) / width].contains(&window);
            let mut forgotten: Vec<u32> = Vec::new();
            let (mut query, mut other) = (Query::default(), Query::default());
            for (k, &(start, end)) in lifetimes.iter().enumerate() {
                if k % 1_500 == 1_499 {
                    let window = forgotten.len() as u32 * 3 % windows;
                    forgotten.push(window);
                    forgetting.forget(window * width, width);
                }
                if forgotten.iter().any(|&w| touches(k, w)) {
                    continue;
                }
                forgetting.ready(spans[k].0 / width * width, width);
                forgetting.ready((spans[k].1 - 1) / width * width, width);
                forgetting.query_lifetime(k, &mut query);
                whole.query_lifetime(k, &mut other);
                let size = 1 + (start * 7 + end) % 9;
                let offset = whole.lowest_fit(&other, size, 1).unwrap();
                assert_eq!(forgetting.lowest_fit(&query, size, 1), Some(offset), "lifetime {k}");
                assert_eq!(forgetting.highest(&query), whole.highest(&other));
                forgetting.insert_queried(&query, offset, offset + size);
                whole.insert_queried(&other, offset, offset + size);
            }
            let levels = forgetting.top.min(width.trailing_zeros());
            let clamp = |range: std::ops::Range<usize>, len: usize| range.start.min(len)..range.end.min(len);
            for &window in &forgotten {
                let (first, end) = ((window * width) as usize, ((window + 1) * width) as usize);
                let leaves = &forgetting.leaf_sets[clamp(first..end, forgetting.leaf_sets.len())];
                assert!(leaves.iter().all(|set| set.0.len == 0 && set.0.class == 0));
                for level in 1..levels {
                    let base = forgetting.leaves >> level;
                    let nodes = &forgetting.nodes
                        [clamp(base + (first >> level)..base + (end >> level), forgetting.nodes.len())];
                    assert!(nodes.iter().flat_map(|n| &n.sets).all(|set| set.len == 0 && set.class == 0));
                }
            }
        }
    }

    /// A leaf's set takes half a node's line (u32 addresses), a node's pair of sets two lines.
    #[test]
    fn leaf_sets_take_half_a_line() {
        assert_eq!(std::mem::size_of::<LeafSet<u32>>(), 32);
        assert_eq!(std::mem::size_of::<LeafSet<u64>>(), 32);
        assert_eq!(std::mem::size_of::<Node<u32>>(), 128);
    }

    /// Five leaves pad to eight: the arrays keep the five leaves and their ancestors (nodes 1 to
    /// 6), and the last leaf's lifetimes, whose ancestors end the node array, still meet.
    #[test]
    fn the_arrays_stop_at_the_last_used_leaf() {
        let lifetimes = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (3, 5), (0, 5)];
        let mut occupancy = Occupancy::<u32>::build_narrow(lifetimes.iter().copied(), &Deadline::none()).unwrap();
        assert_eq!((occupancy.leaves, occupancy.leaf_sets.len(), occupancy.nodes.len()), (8, 5, 7));
        occupancy.insert(4, 5, 0, 10);
        occupancy.insert(3, 5, 10, 20);
        let query = occupancy.query(0, 5);
        assert_eq!(occupancy.lowest_fit_from(&query, 5, 1, 0), Some(20));
        let last = occupancy.query(4, 5);
        assert_eq!(occupancy.highest(&last), 20);
        let before = occupancy.query(2, 3);
        assert_eq!(occupancy.lowest_fit_from(&before, 5, 1, 0), Some(0));
    }

    #[test]
    fn interval_set_merges_overlapping_and_touching() {
        let mut pool = Pool::default();
        let mut set = Set::<u64>::default();
        set.insert(&mut pool, 10, 20);
        assert_eq!(set.view(&pool), &[(10, 20)]);
        set.insert(&mut pool, 30, 40);
        set.insert(&mut pool, 20, 25);
        assert_eq!(set.view(&pool), &[(10, 25), (30, 40)]);
        set.insert(&mut pool, 50, 60);
        set.insert(&mut pool, 0, 2);
        assert_eq!(set.view(&pool), &[(0, 2), (10, 25), (30, 40), (50, 60)]);
        set.insert(&mut pool, 70, 80);
        set.insert(&mut pool, 64, 66);
        assert_eq!(set.view(&pool), &[(0, 2), (10, 25), (30, 40), (50, 60), (64, 66), (70, 80)]);
        set.insert(&mut pool, 5, 35);
        assert_eq!(set.view(&pool), &[(0, 2), (5, 40), (50, 60), (64, 66), (70, 80)]);
        let view = set.view(&pool);
        assert_eq!(view.blocking(0, 1), Some(2));
        assert_eq!(view.blocking(2, 5), None);
        assert_eq!(view.blocking(2, 6), Some(40));
        assert_eq!(view.blocking(40, 50), None);
        assert_eq!(view.blocking(40, 51), Some(60));
        set.insert(&mut pool, 0, 100);
        assert_eq!(set.view(&pool), &[(0, 100)]);
        // A range the set holds already leaves it as it is, and says so.
        assert!(!set.insert(&mut pool, 0, 100));
        assert!(!set.insert(&mut pool, 3, 7));
        assert!(set.insert(&mut pool, 100, 101));
        assert_eq!(set.view(&pool), &[(0, 101)]);
        // The inline interval merges in place, and a lower one moves both to a block, in order.
        let mut small = Set::<u64>::default();
        small.insert(&mut pool, 10, 20);
        small.insert(&mut pool, 5, 10);
        assert_eq!(small.view(&pool), &[(5, 20)]);
        assert!(!small.insert(&mut pool, 12, 15));
        small.insert(&mut pool, 0, 2);
        assert_eq!(small.view(&pool), &[(0, 2), (5, 20)]);
    }

    /// A lifetime the index was not built for is refused, not answered from unfilled sets.
    #[test]
    #[should_panic(expected = "a lifetime not given to Occupancy::new")]
    fn an_unregistered_lifetime_is_refused() {
        // (The whole tree: cut lower, [1, 7) would be tiled by leaves that [0, 8) registers.)
        let lifetimes = [(0u64, 8u64), (0, 1), (7, 8)].into_iter();
        let mut occupancy =
            Occupancy::<u64>::build_cut(lifetimes, &Deadline::none(), Some(u32::MAX), usize::MAX).unwrap();
        occupancy.insert(0, 8, 0, 4);
        let mut query = Query::default();
        occupancy.query_into(1, 7, &mut query);
    }

    /// Routed sets answer as the tree does, though they keep only the sets some lifetime reads.
    #[test]
    fn routed_sets_answer_as_the_tree_does() {
        let mut lifetimes: Vec<(u64, u64)> = Vec::new();
        for s in 0..9u64 {
            for e in s + 1..=9u64 {
                lifetimes.push((s, e));
            }
        }
        let mut tree = Occupancy::new(lifetimes.iter().copied());
        let routes = tree.routes();
        let mut routed = routes.sets::<u64>();
        // A pseudo-random sequence of first-fit placements, each checked before it is made.
        let mut random = crate::test_support::Lcg::new(7);
        for step in 0..200 {
            let state = random.step();
            let i = (state >> 33) as usize % lifetimes.len();
            let (start, end) = lifetimes[i];
            let (size, alignment, floor) = (1 + (state >> 20) % 7, 1 << ((state >> 10) % 3), (state >> 5) % 4);
            let query = tree.query(start, end);
            let (reads, writes) = routes.route(i);
            let expected = tree.lowest_fit_from(&query, size, alignment, floor);
            assert_eq!(routed.lowest_fit_from(reads, size, alignment, floor), expected, "step {step}");
            let offset = expected.unwrap();
            assert!(!routed.is_taken(reads, offset, offset + size));
            assert_eq!(routed.is_taken(reads, 0, offset + size), tree.is_taken(&query, 0, offset + size));
            tree.insert(start, end, offset, offset + size);
            routed.insert(writes.iter().copied(), offset, offset + size);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// Along the routes of random lifetimes, first-fit placements at random sizes,
        /// alignments and floors get the same answers from u32 and u64 routed sets (addresses
        /// up to the u32 limit, so that the blocks grow and are reused).
        #[test]
        fn narrow_routed_sets_answer_as_the_u64_ones(
            raw in prop::collection::vec((0u64..200, 1u64..30, 0u64..4, 1u64..40, 0u32..4, any::<bool>()), 1..200),
            high in any::<bool>(),
        ) {
            let lifetimes: Vec<(u64, u64)> =
                raw.iter().map(|&(s, l, long, ..)| (s, s + if long == 0 { l * 10 } else { l })).collect();
            let routes = Occupancy::new(lifetimes.iter().copied()).routes();
            let mut wide = routes.sets::<u64>();
            let mut narrow = routes.sets::<u32>();
            let limit = RoutedSets::<u32>::LIMIT;
            let base = if high { limit - 2000 } else { 0 };
            for (step, &(_, _, _, size, align, low_floor)) in raw.iter().enumerate() {
                let (reads, writes) = routes.route(step);
                let floor = if low_floor { base } else { base + (step as u64 * 7) % 50 };
                let expected = wide.lowest_fit_from(reads, size, 1 << align, floor);
                prop_assert_eq!(narrow.lowest_fit_from(reads, size, 1 << align, floor), expected);
                let offset = expected.unwrap();
                let top = offset + size;
                prop_assert_eq!(narrow.is_taken(reads, base, top), wide.is_taken(reads, base, top));
                if top > limit {
                    continue;
                }
                wide.insert(writes.iter().copied(), offset, top);
                narrow.insert(writes.iter().copied(), offset, top);
                // Every few steps a wide placement merges many intervals into one.
                if step % 17 == 16 {
                    wide.insert(writes.iter().copied(), base, top);
                    narrow.insert(writes.iter().copied(), base, top);
                }
            }
        }
    }

    /// Against a direct scan of placed rectangles, on every lifetime of a small grid.
    #[test]
    fn queries_see_exactly_the_overlapping_placements() {
        let placed = [(0u64, 3u64, 0u64, 4u64), (2, 6, 4, 6), (5, 9, 0, 2), (7, 8, 10, 12), (1, 2, 20, 21)];
        let mut endpoints: Vec<(u64, u64)> = placed.iter().map(|&(s, e, _, _)| (s, e)).collect();
        for s in 0..9 {
            for e in s + 1..=9 {
                endpoints.push((s, e));
            }
        }
        let mut occupancy = Occupancy::new(endpoints.iter().copied());
        for &(s, e, low, high) in &placed {
            occupancy.insert(s, e, low, high);
        }
        for s in 0..9u64 {
            for e in s + 1..=9u64 {
                let query = occupancy.query(s, e);
                for size in 1..5u64 {
                    let expected = (0..)
                        .find(|&x| {
                            placed.iter().all(|&(ps, pe, low, high)| !(ps < e && s < pe && low < x + size && x < high))
                        })
                        .unwrap();
                    assert_eq!(occupancy.lowest_fit(&query, size, 1), Some(expected), "[{s},{e}) size {size}");
                }
                let expected_top =
                    placed.iter().filter(|&&(ps, pe, _, _)| ps < e && s < pe).map(|p| p.3).max().unwrap_or(0);
                assert_eq!(occupancy.highest(&query), expected_top);
            }
        }
    }
}
