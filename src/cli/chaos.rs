//! `--chaos` and its deviation vector's flags, shared by `run` (and `validate`) and `study`.

use clap::Args;

#[derive(Debug, Args, Clone, Default)]
pub struct ChaosArgs {
    /// Per-point chaos indicators, any of megno, lyapunov, fli, sali, gali2, gali3, gali4
    /// (e.g. megno,lyapunov): deviation vectors per point through the method's linearisation
    /// (one; two for sali; k for galiK, k ≤ 2d); adds megno_mean, lyapunov_mean, lyapunov_max,
    /// chaotic_fraction (⟨Y⟩ > 4), chaos_undefined, fli_mean, sali_mean, gali_mean and their
    /// *_chaotic_fraction and, at the end (every snapshot with --save-states), chaos/step_<k>.npy.
    #[arg(long, value_name = "LIST")]
    pub chaos: Option<String>,
    /// Where each point's deviation vector starts: `random`, a direction per point drawn from
    /// --seed and the point's index (the same in shards, MPI ranks and resumed runs); `ones`,
    /// (1, …, 1); or 2d numbers q1..qd,p1..pd; normalised in the metric [default: random].
    #[arg(long, value_name = "random|ones|LIST", allow_hyphen_values = true)]
    pub deviation: Option<String>,
    /// How the deviation vector's length is measured: `natural`, positions and velocities
    /// (momenta divided by the masses of systems with p = m v, e.g. outer-solar-system);
    /// `unit`, (q, p) as they are; or 2d scales, one unit of each component [default: natural].
    #[arg(long, value_name = "natural|unit|LIST")]
    pub deviation_metric: Option<String>,
}
