//! The ranks' protocol over an in-process transport: one thread per rank.

use super::*;
use std::sync::{Arc, Barrier, Mutex};

/// Ranks as threads of one process: a slot each and a barrier.
struct Threads {
    rank: u32,
    shared: Arc<(Barrier, Mutex<Vec<Vec<u8>>>)>,
}

impl Ranks for Threads {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.shared.1.lock().unwrap().len() as u32
    }
    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, RanksError> {
        let (barrier, slots) = &*self.shared;
        slots.lock().unwrap()[self.rank as usize] = mine.to_vec();
        barrier.wait();
        let all = slots.lock().unwrap().clone();
        barrier.wait();
        Ok(all)
    }
    fn gather(&self, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, RanksError> {
        let all = self.all_gather(mine)?;
        Ok((self.rank == 0).then_some(all))
    }
}

/// Runs `body` as each of `n` ranks, in threads; their answers in rank order.
fn as_ranks<T: Send + 'static>(n: u32, body: fn(Cluster) -> T) -> Vec<T> {
    let shared = Arc::new((
        Barrier::new(n as usize),
        Mutex::new(vec![Vec::new(); n as usize]),
    ));
    let threads: Vec<_> = (0..n)
        .map(|rank| {
            let cluster = Cluster {
                ranks: Arc::new(Threads {
                    rank,
                    shared: shared.clone(),
                }),
                host: format!("host{rank}"),
            };
            std::thread::spawn(move || body(cluster))
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn ranks_that_are_all_fine_pass_every_barrier() {
    let answers = as_ranks(3, |c| {
        c.start(&Health::Fine)?;
        c.barrier(0, Stage::Phase(0))?;
        c.barrier(0, Stage::Phase(1))?;
        let end = c.end_step(0, &Health::Fine)?;
        Ok::<_, RanksError>(end.len())
    });
    for answer in answers {
        assert_eq!(answer.unwrap(), 3);
    }
}

#[test]
fn a_rank_that_fails_before_a_phase_stops_the_others_at_its_gate() {
    let answers = as_ranks(4, |c| {
        c.barrier(0, Stage::Phase(0))?;
        if c.ranks.rank() == 2 {
            // Rank 2's workers failed in phase 0: its runner skips the gate of phase 1.
            let end = c.end_step(0, &Health::Failed("job a: EIO".into()))?;
            return Ok(first_failure(&end).map(|e| e.to_string()));
        }
        let health = match c.barrier(0, Stage::Phase(1)) {
            Ok(()) => Health::Fine,
            Err(_) => Health::Stopped,
        };
        let end = c.end_step(0, &health)?;
        Ok::<_, RanksError>(first_failure(&end).map(|e| e.to_string()))
    });
    for answer in answers {
        assert_eq!(
            answer.unwrap().as_deref(),
            Some("rank 2 (host2) failed: job a: EIO")
        );
    }
}

#[test]
fn a_rank_that_fails_at_the_start_stops_every_rank() {
    let answers = as_ranks(2, |c| {
        let health = match c.ranks.rank() {
            1 => Health::Failed("bad job".into()),
            _ => Health::Fine,
        };
        c.start(&health).map_err(|e| e.to_string())
    });
    for answer in answers {
        assert_eq!(answer.unwrap_err(), "rank 1 (host1) failed: bad job");
    }
}

#[test]
fn a_rank_that_leaves_early_without_failing_is_named() {
    let answers = as_ranks(2, |c| {
        if c.ranks.rank() == 0 {
            c.end_step(0, &Health::Interrupted).map(|_| String::new())
        } else {
            let error = c.barrier(0, Stage::Phase(0)).unwrap_err().to_string();
            c.end_step(0, &Health::Stopped)?;
            Ok(error)
        }
    });
    assert_eq!(
        answers[1].as_ref().unwrap(),
        "rank 0 (host0) ended the step before phase 0; stopping the other ranks"
    );
}
