// One step of a variational system's two-step map (src/method/variational.rs): the state
// (q_k, v_k), v_k = (q_{k+1} − q_k)/h, after the step, and whether the system's Newton
// iteration hit IMPLICIT_MAX_ITER (the driver counts it as an unconverged step).
struct MapStep {
    q: array<real, D>,
    v: array<real, D>,
    capped: bool,
}
