// Kick and drift sub-steps of splitting methods for separable H (Blanes–Moan). The sequence of
// kicks and drifts with their coefficients is generated from data (src/method/splitting.rs).

// p ← p − c_h ∂H/∂q
fn kick(z: ptr<function, Phase>, c_h: f32) {
    var dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-c_h) * dq[k];
    }
}

// q ← q + c_h ∂H/∂p
fn drift(z: ptr<function, Phase>, c_h: f32) {
    var dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + c_h * dp[k];
    }
}
