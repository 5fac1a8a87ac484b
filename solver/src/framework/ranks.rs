//! The processes of a run: one (`Solo`) or, launched by `mpirun` with the `mpi` feature, one per
//! MPI rank (`Mpi`). A family that decomposes its grid asks `world()` for its rank, exchanges
//! ghost rows with the ranks beside it and reduces across all of them; the run loop writes files
//! on rank 0 only, after collective calls (fields, state) that every rank makes. Ranks split a
//! structured grid into slabs of rows along y (`Slab`), which keeps ghost rows contiguous.

use crate::error::{Result, SolverError};
use std::sync::OnceLock;

/// The collective operations a decomposed simulation needs. Every rank must make the same
/// calls in the same order.
pub trait Ranks: Send + Sync {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// The maximum of `x` over all ranks (exact: the same on every rank).
    fn max(&self, x: f64) -> f64;
    /// Element-wise sums over all ranks.
    fn sum(&self, xs: &[f64]) -> Vec<f64>;
    /// Send `down` to rank `below` and `up` to rank `above`, receiving what they send up and
    /// down into `from_below` and `from_above` (left alone where there is no such rank); byte
    /// buffers of equal length on both sides. Below and above may be the same rank (a ring of
    /// two around a periodic axis).
    fn exchange(&self, peers: Peers, down: &[u8], up: &[u8], from_below: &mut [u8], from_above: &mut [u8]);
    /// Every rank's `local` concatenated in rank order on rank 0 (empty elsewhere).
    fn gather(&self, local: &[u8]) -> Vec<u8>;
    /// Rank 0's `bytes` on every rank.
    fn broadcast(&self, bytes: &mut [u8]);
    /// End every rank with exit status `code`.
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

/// The ranks beside one in a chain of slabs (None at an end that is not periodic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peers {
    pub below: Option<usize>,
    pub above: Option<usize>,
}

/// One process: the collective operations are identities.
pub struct Solo;

impl Ranks for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn max(&self, x: f64) -> f64 {
        x
    }
    fn sum(&self, xs: &[f64]) -> Vec<f64> {
        xs.to_vec()
    }
    fn exchange(&self, _: Peers, _: &[u8], _: &[u8], _: &mut [u8], _: &mut [u8]) {}
    fn gather(&self, local: &[u8]) -> Vec<u8> {
        local.to_vec()
    }
    fn broadcast(&self, _: &mut [u8]) {}
}

static WORLD: OnceLock<Box<dyn Ranks>> = OnceLock::new();

/// The ranks of this run (`Solo` unless `init` found an MPI launch).
pub fn world() -> &'static dyn Ranks {
    WORLD.get_or_init(|| Box::new(Solo)).as_ref()
}

/// Whether this process writes files (rank 0).
pub fn is_root() -> bool {
    world().rank() == 0
}

/// This process's rank among those on its machine (Open MPI's local rank; 0 without MPI): the
/// first GPU it takes.
pub fn local_rank() -> usize {
    std::env::var("OMPI_COMM_WORLD_LOCAL_RANK")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|_| world().size() > 1)
        .unwrap_or(0)
}

/// What keeps MPI initialised until the end of `main` (finalised when dropped).
pub struct Guard {
    #[cfg(feature = "mpi")]
    _universe: Option<mpi::environment::Universe>,
}

/// Start MPI where the process was launched by an MPI launcher (and the binary has the `mpi`
/// feature); a launch by mpirun without the feature is refused rather than run N times over.
pub fn init() -> Result<Guard> {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    #[cfg(feature = "mpi")]
    {
        if launched {
            let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
                .ok_or_else(|| SolverError::Other("MPI was initialised twice".into()))?;
            let comm = mpi_ranks::Mpi::new(universe.world());
            if comm.size() > 1 {
                let _ = WORLD.set(Box::new(comm));
            }
            return Ok(Guard {
                _universe: Some(universe),
            });
        }
        Ok(Guard { _universe: None })
    }
    #[cfg(not(feature = "mpi"))]
    {
        let size: usize = std::env::var("OMPI_COMM_WORLD_SIZE")
            .or_else(|_| std::env::var("PMI_SIZE"))
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        if launched && size > 1 {
            return Err(SolverError::Other(format!(
                "launched as {size} MPI ranks, but this solver was built without MPI: rebuild with `cargo build --release --features solver/mpi` (needs libopenmpi-dev and libclang-dev), or run one process"
            )));
        }
        Ok(Guard {})
    }
}

/// The rows [start, end) of a structured grid's `rows` (along y) that rank `rank` of `size` owns:
/// as equal as possible, the first ranks taking one more where they do not divide evenly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slab {
    pub rank: usize,
    pub size: usize,
    pub start: usize,
    pub end: usize,
}

impl Slab {
    /// Rank `rank`'s slab, or what is wrong with splitting `rows` rows `size` ways with ghost
    /// rows `depth` deep (each rank must own at least as many rows as its ghosts reach).
    pub fn of(rows: usize, rank: usize, size: usize, depth: usize) -> std::result::Result<Slab, String> {
        let least = depth.max(2);
        if size > 1 && rows / size < least {
            let most = (rows / least).max(1);
            return Err(format!(
                "{size} ranks cannot share {rows} rows (along y) with {depth} ghost rows: each needs at least {least} rows; use at most {most} ranks or a taller grid"
            ));
        }
        let (base, extra) = (rows / size, rows % size);
        let start = rank * base + rank.min(extra);
        let end = start + base + usize::from(rank < extra);
        Ok(Slab { rank, size, start, end })
    }

    pub fn rows(&self) -> usize {
        self.end - self.start
    }
    pub fn has_below(&self) -> bool {
        self.rank > 0
    }
    pub fn has_above(&self) -> bool {
        self.rank + 1 < self.size
    }
    /// The slabs beside this one, the first and last joined where `ring` (a periodic axis).
    pub fn peers(&self, ring: bool) -> Peers {
        let ring = ring && self.size > 1;
        Peers {
            below: if self.has_below() {
                Some(self.rank - 1)
            } else {
                ring.then(|| self.size - 1)
            },
            above: if self.has_above() {
                Some(self.rank + 1)
            } else {
                ring.then_some(0)
            },
        }
    }
}

#[cfg(feature = "mpi")]
mod mpi_ranks {
    use super::{Peers, Ranks};
    use mpi::collective::SystemOperation;
    use mpi::datatype::PartitionMut;
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;

    /// The ranks of an MPI launch (MPI_COMM_WORLD).
    pub struct Mpi {
        world: SimpleCommunicator,
    }

    // SAFETY: MPI is initialised with thread support at least `funneled`, and the solver makes
    // every MPI call from the main thread (rayon's workers make none).
    unsafe impl Send for Mpi {}
    unsafe impl Sync for Mpi {}

    impl Mpi {
        pub fn new(world: SimpleCommunicator) -> Self {
            Mpi { world }
        }
    }

    impl Ranks for Mpi {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        fn size(&self) -> usize {
            self.world.size() as usize
        }
        fn max(&self, x: f64) -> f64 {
            let mut out = 0.0;
            self.world.all_reduce_into(&x, &mut out, SystemOperation::max());
            out
        }
        fn sum(&self, xs: &[f64]) -> Vec<f64> {
            let mut out = vec![0.0; xs.len()];
            self.world.all_reduce_into(xs, &mut out[..], SystemOperation::sum());
            out
        }
        fn exchange(&self, peers: Peers, down: &[u8], up: &[u8], from_below: &mut [u8], from_above: &mut [u8]) {
            // Tag 0 travels down, tag 1 up: a ring of two (below = above) tells them apart.
            mpi::request::scope(|scope| {
                let mut requests = Vec::new();
                if let Some(b) = peers.below {
                    let below = self.world.process_at_rank(b as i32);
                    requests.push(below.immediate_receive_into_with_tag(scope, from_below, 1));
                    requests.push(below.immediate_send_with_tag(scope, down, 0));
                }
                if let Some(a) = peers.above {
                    let above = self.world.process_at_rank(a as i32);
                    requests.push(above.immediate_receive_into_with_tag(scope, from_above, 0));
                    requests.push(above.immediate_send_with_tag(scope, up, 1));
                }
                for r in requests {
                    r.wait();
                }
            });
        }
        fn gather(&self, local: &[u8]) -> Vec<u8> {
            let root = self.world.process_at_rank(0);
            let n = local.len() as i32;
            if self.rank() != 0 {
                root.gather_into(&n);
                root.gather_varcount_into(local);
                return Vec::new();
            }
            let mut counts = vec![0i32; self.size()];
            root.gather_into_root(&n, &mut counts[..]);
            let displs: Vec<i32> = counts
                .iter()
                .scan(0, |at, &c| {
                    let d = *at;
                    *at += c;
                    Some(d)
                })
                .collect();
            let mut all = vec![0u8; counts.iter().sum::<i32>() as usize];
            let mut partition = PartitionMut::new(&mut all[..], counts, displs);
            root.gather_varcount_into_root(local, &mut partition);
            all
        }
        fn broadcast(&self, bytes: &mut [u8]) {
            self.world.process_at_rank(0).broadcast_into(bytes);
        }
        fn abort(&self, code: i32) -> ! {
            self.world.abort(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn slabs_cover_the_rows_once_and_refuse_thin_ones() {
        for (rows, size) in [(10, 3), (64, 4), (7, 2), (9, 1)] {
            let slabs: Vec<Slab> = (0..size).map(|r| Slab::of(rows, r, size, 1).unwrap()).collect();
            assert_eq!(slabs[0].start, 0);
            assert_eq!(slabs[size - 1].end, rows);
            assert!(slabs.windows(2).all(|w| w[0].end == w[1].start));
            let (lo, hi) = (
                slabs.iter().map(Slab::rows).min().unwrap(),
                slabs.iter().map(Slab::rows).max().unwrap(),
            );
            assert!(hi - lo <= 1);
        }
        let e = Slab::of(6, 0, 4, 1).unwrap_err();
        assert!(e.contains("use at most 3 ranks"), "{e}");
        assert!(Slab::of(16, 0, 4, 4).is_ok() && Slab::of(15, 0, 4, 4).is_err());
    }
}
