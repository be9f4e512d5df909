//! The flags that qualify a Lagrangian given by `--lagrangian` (`LagrangianArgs`, flattened
//! into the system's flags; `system::lagrangian`): its discrete Lagrangian, the symmetry whose
//! discrete momentum is measured, whether its initial states give velocities, and its
//! holonomic constraints.

use clap::Args;

#[derive(Debug, Args, Clone, Default)]
pub struct LagrangianArgs {
    /// The discrete Lagrangian of --lagrangian: left or right (h L at one end, order 1),
    /// midpoint (order 2, the implicit midpoint rule), trapezoid (order 2, Störmer–Verlet for
    /// L = ½vᵀMv − V(q)); along quadratic or cubic paths (Galerkin): lobatto3 and gauss2
    /// (order 4), lobatto4 and gauss3 (order 6) [default: trapezoid].
    #[arg(long, value_name = "RULE", value_parser = [
        "left", "right", "midpoint", "trapezoid", "lobatto3", "lobatto4", "gauss2", "gauss3",
    ])]
    pub discretization: Option<String>,
    /// The generator ξ(q) of a symmetry of --lagrangian, a formula in q per degree of freedom,
    /// e.g. '-q2,q1' (rotations): J = p·ξ(q)'s drift is the momentum_err_max column.
    #[arg(long, value_name = "EXPR,..", allow_hyphen_values = true)]
    pub momentum: Option<String>,
    /// The initial states of --lagrangian give velocities v1..vd in p's place (--center,
    /// --lo/--hi, --input, the default state): each point starts at p = ∂L/∂v(q, v), the
    /// continuous Legendre transform, and runs in (q, p) as every Lagrangian run does.
    #[arg(long)]
    pub velocities: bool,
    /// A holonomic constraint g(q) = 0 of --lagrangian, a formula in q (repeat for more),
    /// e.g. 'q1^2 + q2^2 + q3^2 - 1' (a spherical pendulum in Cartesian coordinates): the
    /// step keeps the positions on it and the momenta tangent to it (with a one-segment
    /// discretization); initial states are put on it; constraint_err_max is max |g|.
    #[arg(long = "constraint", value_name = "EXPR", allow_hyphen_values = true)]
    pub constraints: Vec<String>,
}
