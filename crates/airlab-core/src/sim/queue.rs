//! Event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! The sequence number breaks ties in FIFO order, which is what makes runs deterministic:
//! two events at the same nanosecond always fire in the order they were scheduled.

use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    /// The time in the high 64 bits, the sequence in the low: one comparison orders both.
    key: u128,
    event: E,
}
impl<E> Entry<E> {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed so that BinaryHeap (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    processed: u64,
    /// The last popped event still sits at the top of the heap: most handlers schedule an event
    /// first thing, which then takes its place with one sift down instead of a removal and an
    /// insertion (each a walk through the heap's depth).
    popped_on_top: bool,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now: 0, processed: 0, popped_on_top: false }
    }

    /// Current simulated time: the time of the event being processed.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.popped_on_top)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedule `event` at absolute time `at`; times in the past are clamped to now.
    pub fn schedule(&mut self, at: Time, event: E) {
        let seq = self.reserve();
        self.schedule_reserved(at, seq, event);
    }

    /// Take the next place in the order of equal times without scheduling yet: an event
    /// scheduled later with [`Self::schedule_reserved`] and this number fires among events at
    /// its time as if it had been scheduled now. A FIFO of timed items (a wire) keeps only its
    /// head in the queue this way, in the order one event per item would have had.
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedule `event` at `at` in the place `seq` reserved ([`Self::reserve`]).
    pub fn schedule_reserved(&mut self, at: Time, seq: u64, event: E) {
        let entry = Entry { key: (u128::from(at.max(self.now)) << 64) | u128::from(seq), event };
        if self.popped_on_top {
            self.popped_on_top = false;
            // Dropping the PeekMut sifts the new entry down to its place.
            *self.heap.peek_mut().expect("the popped entry is on top") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Remove the popped entry if it still sits on top.
    fn settle(&mut self) {
        if self.popped_on_top {
            self.popped_on_top = false;
            self.heap.pop();
        }
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle();
        self.heap.peek().map(|e| e.time())
    }
}

impl<E: Copy> EventQueue<E> {
    /// Pop the earliest event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.settle();
        let entry = self.heap.peek()?;
        let (time, event) = (entry.time(), entry.event);
        self.popped_on_top = true;
        self.now = time;
        self.processed += 1;
        Some((time, event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_fifo_order() {
        let mut q = EventQueue::new();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule(30, 'd');
        q.schedule(10, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.now(), 30);
        assert_eq!(q.processed(), 4);
    }

    /// A reserved place orders as if the event had been scheduled when it was reserved.
    #[test]
    fn reserved_places_keep_the_order_of_reservation() {
        let mut q = EventQueue::new();
        let first = q.reserve();
        q.schedule(10, 'b');
        let third = q.reserve();
        q.schedule(10, 'd');
        q.schedule_reserved(10, third, 'c');
        q.schedule_reserved(10, first, 'a');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    /// An event scheduled right after a pop takes the popped one's place; the order is the
    /// same as with a removal and an insertion.
    #[test]
    fn scheduling_after_a_pop_keeps_the_order() {
        let mut q = EventQueue::new();
        for (t, e) in [(5, 'a'), (9, 'e'), (7, 'c'), (20, 'g')] {
            q.schedule(t, e);
        }
        assert_eq!(q.pop(), Some((5, 'a')));
        assert_eq!(q.len(), 3);
        q.schedule(8, 'd');
        q.schedule(6, 'b');
        assert_eq!(q.pop(), Some((6, 'b')));
        assert_eq!(q.pop(), Some((7, 'c')));
        q.schedule(10, 'f');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['d', 'e', 'f', 'g']);
        assert!(q.is_empty() && q.peek_time().is_none());
    }

    #[test]
    fn past_events_are_clamped_to_now() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        q.pop();
        q.schedule(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }
}
