//! fio's random map for jobs whose IO sizes vary: one bit per block of the blocks done in
//! the current pass (fio's `lib/axmap.c`), the next free block after a done one, and the
//! free run an IO shrinks to (`axmap_set_nr`). Used by [`crate::offsets::OffsetGenerator`].

/// fio's random map: one bit per block (the smallest size of the IO's direction), set when
/// an IO covers the block.
/// A full map starts again empty (a new pass, as fio resets its map when a time-based job
/// or a new loop comes back to it).
#[derive(Debug, Clone)]
pub struct BlockMap {
    words: Vec<u64>,
    blocks: u64,
    /// Blocks marked done.
    done: u64,
}

impl BlockMap {
    /// An empty map of `blocks` blocks (at least one).
    pub fn new(blocks: u64) -> Self {
        let blocks = blocks.max(1);
        BlockMap {
            words: vec![0; blocks.div_ceil(64) as usize],
            blocks,
            done: 0,
        }
    }

    /// The number of blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// True when every block is done: the pass is over (in a size-based job's last pass its
    /// file is done, [`crate::offsets::OffsetGenerator::with_pass_limit`]).
    pub fn is_full(&self) -> bool {
        self.done >= self.blocks
    }

    /// True when block `b` is not done yet.
    #[inline]
    pub fn is_free(&self, b: u64) -> bool {
        self.words[(b / 64) as usize] & (1 << (b % 64)) == 0
    }

    /// The first free block at or after `from`, else the first from the start (fio's
    /// `axmap_next_free` wraps the same way); `None` when the map is full.
    pub fn next_free(&self, from: u64) -> Option<u64> {
        let from = from % self.blocks;
        self.first_free_from(from)
            .or_else(|| (from > 0).then(|| self.first_free_from(0)).flatten())
    }

    /// The first free block in `from..blocks`, a word at a time.
    fn first_free_from(&self, from: u64) -> Option<u64> {
        let mut word = (from / 64) as usize;
        let mut free = !self.words[word] & (u64::MAX << (from % 64));
        loop {
            if free != 0 {
                let b = word as u64 * 64 + u64::from(free.trailing_zeros());
                return (b < self.blocks).then_some(b);
            }
            word += 1;
            if word == self.words.len() {
                return None;
            }
            free = !self.words[word];
        }
    }

    /// Marks up to `count` blocks from `b` as done, stopping at the first block already done
    /// or the end of the map; returns how many it marked (fio's `axmap_set_nr`).
    pub fn take_run(&mut self, b: u64, count: u64) -> u64 {
        let marked = self.mark_run(b, count);
        self.done += marked;
        marked
    }

    /// [`BlockMap::take_run`] without the count of blocks done.
    fn mark_run(&mut self, b: u64, count: u64) -> u64 {
        let end = b.saturating_add(count).min(self.blocks);
        let mut at = b;
        while at < end {
            let word = (at / 64) as usize;
            let bit = at % 64;
            let span = (64 - bit).min(end - at);
            let mask = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << bit
            };
            let taken = self.words[word] & mask;
            if taken != 0 {
                let free = u64::from(taken.trailing_zeros()) - bit;
                if free > 0 {
                    self.words[word] |= ((1u64 << free) - 1) << bit;
                }
                return at + free - b;
            }
            self.words[word] |= mask;
            at += span;
        }
        at - b
    }

    /// Empties the map (a new pass).
    pub fn reset(&mut self) {
        self.words.fill(0);
        self.done = 0;
    }
}
