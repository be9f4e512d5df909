"""Port-ready scalar implementation (what a WGSL/Rust kernel would do): explicit formulas,
Cramer 3x3 solve, generic float dtype (float32 or float64). t=1: thesis constraint, t=0: symmetric."""
import numpy as np

def make(dt):
    f = dt
    def step(X, xi, h, W, a, m, J, t, rtol, maxit):
        x1, x2, x3 = xi; X1, X2 = X
        one, two = f(1), f(2)
        kap = f(2) * m * a * a / J
        hw = h * W
        A = -one + f(0.25) * hw * hw
        kA = kap * A
        q = two - kA
        c = (one + kap) * hw
        c3 = (one + t * kap) * hw
        cx = kap / a * hw * hw
        # 1. position update
        s = two / (one + x1 * x1 + x2 * x2 + x3 * x3)
        Y1 = X1 + a * s * (x2 + t * x3 * x1)
        Y2 = X2 + a * s * (-x1 + t * x3 * x2)
        # 2. beta from eta = xi (previous increment) and Y = X_{k+1}
        e1, e2, e3 = x1, x2, x3
        b1 = s * (q * e1 + c * e2 + t * kA * e3 * e2 + hw * (t * kap - one) * e3 * e1) - cx * Y2
        b2 = s * (q * e2 - c * e1 - t * kA * e3 * e1 + hw * (t * kap - one) * e3 * e2) - cx * (-Y1)
        b3 = s * (two * e3 + hw * (one - e3 * e3))
        # 3. Newton on G(z) = 2 g(z) - (1+|z|^2) beta, start z = xi
        z1, z2, z3 = x1, x2, x3
        it = 0
        for it in range(1, maxit + 1):
            p = c - t * kA * z3
            n2 = one + z1 * z1 + z2 * z2 + z3 * z3
            G1 = two * (q * z1 - p * z2 - c3 * z3 * z1) - n2 * b1
            G2 = two * (q * z2 + p * z1 - c3 * z3 * z2) - n2 * b2
            G3 = two * (two * z3 + hw * (one - z3 * z3)) - n2 * b3
            d = q - c3 * z3
            J11 = two * d - two * b1 * z1; J12 = -two * p - two * b1 * z2; J13 = two * (t * kA * z2 - c3 * z1) - two * b1 * z3
            J21 = two * p - two * b2 * z1; J22 = two * d - two * b2 * z2; J23 = two * (-t * kA * z1 - c3 * z2) - two * b2 * z3
            J31 = -two * b3 * z1; J32 = -two * b3 * z2; J33 = two * (two - two * hw * z3) - two * b3 * z3
            C11 = J22 * J33 - J23 * J32; C12 = J23 * J31 - J21 * J33; C13 = J21 * J32 - J22 * J31
            det = J11 * C11 + J12 * C12 + J13 * C13
            d1 = (G1 * C11 + G2 * (J13 * J32 - J12 * J33) + G3 * (J12 * J23 - J13 * J22)) / det
            d2 = (G1 * C12 + G2 * (J11 * J33 - J13 * J31) + G3 * (J13 * J21 - J11 * J23)) / det
            d3 = (G1 * C13 + G2 * (J12 * J31 - J11 * J32) + G3 * (J11 * J22 - J12 * J21)) / det
            z1 -= d1; z2 -= d2; z3 -= d3
            if max(abs(d1), abs(d2), abs(d3)) <= rtol * max(abs(z1), abs(z2), abs(z3)):
                break
        return (Y1, Y2), (z1, z2, z3), it
    return step

def run(dt, X1, xi1, h, W, N, t, rtol, maxit=10, a=1, m=1, J=0.4):
    f = dt; step = make(f)
    X = (f(X1[0]), f(X1[1])); xi = tuple(f(v) for v in xi1)
    h, W, a, m, J, t, rtol = f(h), f(W), f(a), f(m), f(J), f(t), f(rtol)
    Xs = [X]; XIs = [xi]; its = []
    for k in range(N - 2):
        X, xi, it = step(X, xi, h, W, a, m, J, t, rtol, maxit)
        Xs.append(X); XIs.append(xi); its.append(it)
    return np.array(Xs, dtype=np.float64), np.array(XIs, dtype=np.float64), np.array(its)

if __name__ == '__main__':
    import reference as R, warnings
    warnings.simplefilter('ignore')
    for t in (1, 0):
        for name, W, h, X1, F1 in [('(c)', 1.0, 0.02, [0, 0], R.rot_thesis('y', -0.1)), ('(d)', 1.5, 0.001, [2, 0], R.rot_thesis('y', 0.002))]:
            xi1 = R.cayinv(F1); N = 4096
            Xr, XIr, _ = R.simulate(np.array(X1, float), xi1, R.Params(h, W, sym=(t == 0)), N)
            X64, XI64, it64 = run(np.float64, X1, xi1, h, W, N, t, 1e-14)
            X32, XI32, it32 = run(np.float32, X1, xi1, h, W, N, t, 2e-7, maxit=8)
            P = R.Params(h, W, sym=(t == 0))
            E64 = R.energies(X64, XI64[:-1], P)['E_sk   (w=sk(F)/2h, Xmid)']
            E32 = R.energies(X32, XI32[:-1], P)['E_sk   (w=sk(F)/2h, Xmid)']
            print('t=%d %s: scalar f64 vs reference max|dX|=%.1e; its f64 mean %.2f max %d; f32 its mean %.2f max %d; f32 max|dX|=%.2e; E_sk relvar f64 %.2e f32 %.2e' % (
                t, name, np.abs(X64 - Xr[:-1]).max(), it64.mean(), it64.max(), it32.mean(), it32.max(), np.abs(X32 - Xr[:-1]).max(),
                np.ptp(E64) / abs(E64[0]), np.ptp(E32) / abs(E32[0])))

def energy_from_state(X, XI, h, W, t, a=1.0, m=1.0, J=0.4, dt=np.float64):
    """E_k = 1/2 m |v_k|^2 + 1/2 J |w_k|^2 - 1/2 m W^2 |X_k + dX_k/2|^2 with
       dX_k = a s (xi2 + t xi3 xi1, -xi1 + t xi3 xi2), v_k = dX_k/h, w_k = s xi_k / h, s = 2/(1+|xi|^2)
       (no differences of stored positions -> no cancellation)."""
    X = X.astype(dt); XI = XI.astype(dt); h, W = dt(h), dt(W)
    s = dt(2) / (dt(1) + np.sum(XI * XI, 1))
    d1 = a * s * (XI[:, 1] + t * XI[:, 2] * XI[:, 0]); d2 = a * s * (-XI[:, 0] + t * XI[:, 2] * XI[:, 1])
    T = dt(0.5) * m * (d1 * d1 + d2 * d2) / (h * h)
    Rr = dt(0.5) * J * s * s * np.sum(XI * XI, 1) / (h * h)
    mx = X[:, 0] + dt(0.5) * d1; my = X[:, 1] + dt(0.5) * d2
    return T + Rr - dt(0.5) * m * W * W * (mx * mx + my * my)

if __name__ == '__main__':
    print('energy from state (v from xi, not from X differences):')
    for t in (1, 0):
        for name, W, h, X1, F1 in [('(c)', 1.0, 0.02, [0, 0], R.rot_thesis('y', -0.1)), ('(d)', 1.5, 0.001, [2, 0], R.rot_thesis('y', 0.002))]:
            xi1 = R.cayinv(F1); N = 4096
            X64, XI64, _ = run(np.float64, X1, xi1, h, W, N, t, 1e-14)
            X32, XI32, _ = run(np.float32, X1, xi1, h, W, N, t, 2e-7, maxit=8)
            E64 = energy_from_state(X64, XI64, h, W, t)
            E32a = energy_from_state(X32, XI32, h, W, t)                      # f32 state, f64 evaluation
            E32b = energy_from_state(X32, XI32, h, W, t, dt=np.float32)       # all f32
            print('  t=%d %s: E0=%.17g relvar f64 %.2e | f32 state (eval f64) %.2e | all f32 %.2e' % (
                t, name, E64[0], np.ptp(E64) / abs(E64[0]), np.ptp(E32a) / abs(E32a[0]), np.ptp(E32b) / abs(E32b[0])))
