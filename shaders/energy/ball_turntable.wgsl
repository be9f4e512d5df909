// Ball on a turntable: E = ½m|ΔX/h|² + ½J|sξ/h|² − ½mΩ²|X + ½ΔX|² of the state (q, v), ξ = h v/2,
// in f64. CPU: BallTurntable::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let x0 = 0.5lf * H_STEP * p[0];
    let x1 = 0.5lf * H_STEP * p[1];
    let x2 = 0.5lf * H_STEP * p[2];
    let r2 = x0 * x0 + x1 * x1 + x2 * x2;
    let s = 2.0lf / (1.0lf + r2);
    let dx = BALL_A * s * (x1 + BALL_T * x2 * x0);
    let dy = BALL_A * s * (-x0 + BALL_T * x2 * x1);
    let h2 = H_STEP * H_STEP;
    let mx = q[0] + 0.5lf * dx;
    let my = q[1] + 0.5lf * dy;
    return 0.5lf * BALL_M * (dx * dx + dy * dy) / h2 + 0.5lf * BALL_J * s * s * r2 / h2
        - 0.5lf * BALL_M * BALL_OMEGA * BALL_OMEGA * (mx * mx + my * my);
}
