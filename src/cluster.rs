//! MPI ranks (`--features mpi`, `mpirun -n R phaseflow run ...`). `Peers` is this process's
//! place among the ranks (rank 0 of 1 without MPI) and the few collective operations a run
//! needs, on bytes: rank 0 gathering every rank's (snapshot parts, saved states), every rank
//! gathering every rank's (a loop's nodes), and rank 0's answer broadcast. The run's
//! arithmetic never depends on the rank count; only where points are advanced does.
//!
//! Without the feature a binary launched by mpirun with more than one rank refuses to run
//! (`launched_ranks`), rather than R copies writing one folder.

use crate::error::Result;
use crate::input_err;

/// The number of ranks a launcher started, read from its environment (Open MPI, PMIx,
/// MPICH/Hydra and Slurm's PMI): `None` outside a launcher.
pub fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// This process's rank on its node (the GPU it takes among the node's), from the launcher.
#[cfg(feature = "mpi")]
fn launched_local_rank() -> usize {
    [
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "MPI_LOCALRANKID",
        "SLURM_LOCALID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.parse().ok())
    .unwrap_or(0)
}

/// This process among the run's ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peers {
    rank: usize,
    size: usize,
    local_rank: usize,
}

impl Peers {
    /// One process, no MPI.
    pub fn alone() -> Peers {
        Peers {
            rank: 0,
            size: 1,
            local_rank: 0,
        }
    }

    /// The ranks of the MPI job this process belongs to (`alone` without MPI).
    pub fn current() -> Peers {
        #[cfg(feature = "mpi")]
        if mpi::environment::is_initialized() {
            use mpi::traits::Communicator;
            let world = mpi::topology::SimpleCommunicator::world();
            return Peers {
                rank: world.rank() as usize,
                size: world.size() as usize,
                local_rank: launched_local_rank(),
            };
        }
        Peers::alone()
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Rank 0: the one that writes the run's files.
    pub fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// Split over several ranks.
    pub fn many(&self) -> bool {
        self.size > 1
    }

    /// This rank's number on its node.
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// Rank 0 receives every rank's bytes, in rank order; the others `None`.
    pub fn gather(&self, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>> {
        if !self.many() {
            return Ok(Some(vec![mine.to_vec()]));
        }
        check_message(mine)?;
        #[cfg(feature = "mpi")]
        return Ok(mpi_ops::gather(mine));
        #[allow(unreachable_code)]
        Err(no_mpi())
    }

    /// Every rank receives every rank's bytes, in rank order.
    pub fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        if !self.many() {
            return Ok(vec![mine.to_vec()]);
        }
        check_message(mine)?;
        #[cfg(feature = "mpi")]
        return Ok(mpi_ops::all_gather(mine));
        #[allow(unreachable_code)]
        Err(no_mpi())
    }

    /// Wait until every rank has reached this point.
    pub fn barrier(&self) -> Result<()> {
        if !self.many() {
            return Ok(());
        }
        #[cfg(feature = "mpi")]
        return {
            mpi_ops::barrier();
            Ok(())
        };
        #[allow(unreachable_code)]
        Err(no_mpi())
    }

    /// End every rank of the job at once (an error on one rank would leave the others
    /// waiting in a collective operation).
    pub fn abort(&self, code: i32) -> ! {
        #[cfg(feature = "mpi")]
        if self.many() {
            use mpi::traits::Communicator;
            mpi::topology::SimpleCommunicator::world().abort(code);
        }
        std::process::exit(code)
    }
}

/// MPI counts a message's bytes in an i32.
fn check_message(mine: &[u8]) -> Result<()> {
    if mine.len() > i32::MAX as usize {
        return Err(input_err!(
            "a rank's share ({} MiB) is over MPI's 2 GiB per message: use more ranks (or --shard K/N with phaseflow merge, which has no such limit)",
            mine.len() >> 20
        ));
    }
    Ok(())
}

fn no_mpi() -> crate::Error {
    input_err!("this phaseflow was built without MPI: build it with `cargo build --release --features mpi`")
}

/// Refuse a launch of R > 1 ranks in a binary built without MPI: every copy would run the
/// whole ensemble into the same folder.
pub fn check_launch() -> Result<()> {
    if cfg!(feature = "mpi") {
        return Ok(());
    }
    match launched_ranks() {
        Some(r) if r > 1 => Err(input_err!(
            "started as one of {r} MPI ranks, but this phaseflow was built without MPI: build it with `cargo build --release --features mpi` (or run without mpirun)"
        )),
        _ => Ok(()),
    }
}

/// Initialise MPI when a launcher started this process (kept alive until the returned guard
/// drops, at the end of `main`); `None` outside a launcher.
#[cfg(feature = "mpi")]
pub fn init() -> Option<mpi::environment::Universe> {
    launched_ranks()?;
    // rayon's threads never call MPI: only the main thread does.
    mpi::initialize_with_threading(mpi::Threading::Funneled).map(|(u, _)| u)
}

#[cfg(feature = "mpi")]
mod mpi_ops {
    use mpi::datatype::PartitionMut;
    use mpi::traits::*;
    use mpi::Count;

    fn offsets(counts: &[Count]) -> Vec<Count> {
        counts
            .iter()
            .scan(0, |acc, &c| {
                let at = *acc;
                *acc += c;
                Some(at)
            })
            .collect()
    }

    fn split(all: &[u8], counts: &[Count], at: &[Count]) -> Vec<Vec<u8>> {
        counts
            .iter()
            .zip(at)
            .map(|(&c, &o)| all[o as usize..(o + c) as usize].to_vec())
            .collect()
    }

    pub(super) fn gather(mine: &[u8]) -> Option<Vec<Vec<u8>>> {
        let world = mpi::topology::SimpleCommunicator::world();
        let root = world.process_at_rank(0);
        let len = mine.len() as Count;
        if world.rank() != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(mine);
            return None;
        }
        let mut counts = vec![0 as Count; world.size() as usize];
        root.gather_into_root(&len, &mut counts[..]);
        let at = offsets(&counts);
        let mut all = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
        {
            let mut part = PartitionMut::new(&mut all[..], &counts[..], &at[..]);
            root.gather_varcount_into_root(mine, &mut part);
        }
        Some(split(&all, &counts, &at))
    }

    pub(super) fn barrier() {
        mpi::topology::SimpleCommunicator::world().barrier();
    }

    pub(super) fn all_gather(mine: &[u8]) -> Vec<Vec<u8>> {
        let world = mpi::topology::SimpleCommunicator::world();
        let len = mine.len() as Count;
        let mut counts = vec![0 as Count; world.size() as usize];
        world.all_gather_into(&len, &mut counts[..]);
        let at = offsets(&counts);
        let mut all = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
        {
            let mut part = PartitionMut::new(&mut all[..], &counts[..], &at[..]);
            world.all_gather_varcount_into(mine, &mut part);
        }
        split(&all, &counts, &at)
    }
}
