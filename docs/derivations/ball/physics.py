"""Physics checks: ODE (DOP853, rtol 1e-12) energy conservation and 2W/7 circles; discrete scheme
circle fits at h=0.001; convergence order; thesis-variant comparison."""
import numpy as np
import reference as R
from core import residual_matrix, cay, cayinv
from scipy.optimize import fsolve

def ang_freq(Xf, c, t):
    ph = np.unwrap(np.arctan2(Xf[:, 1] - c[1], Xf[:, 0] - c[0]))
    return np.polyfit(t, ph, 1)[0]

print('#### 1. continuous ODE (physical model, spatial angular velocity)')
for W, X0, w0 in [(0.0, [0, 0], [0.3, -1.0, 0.7]), (1.0, [2, 0], [0.3, -1.0, 0.7]), (1.5, [2, 0], [0.0, -2.0, 0.0]), (1.0, [0, 0], [0, 5.0, 0])]:
    T = 7 * np.pi / W * 1.5 if W else 20.0
    t = np.linspace(0, T, 4001)
    sol = R.ode_solve(np.array(X0, float), np.array(w0, float), W, T, t_eval=t)
    E = R.ode_energy(sol.y, W)
    X = sol.y[0:2].T
    Xf = R.to_fixed(X, t, W)
    # thesis' H = inertial kinetic energy
    w = sol.y[2:5]; Xd = np.stack([w[1], -w[0]])
    V0 = Xd.T + W * np.stack([-X[:, 1], X[:, 0]], 1)
    H = 0.5 * np.sum(V0 ** 2, 1) + 0.5 * 0.4 * (w[0] ** 2 + w[1] ** 2 + (w[2] + W) ** 2)
    line = '  W=%.1f X0=%s w0=%s: Jacobi E rel.var %.2e ; inertial KE (thesis H) var %.3e' % (
        W, X0, w0, (E.max() - E.min()) / abs(E[0]), H.max() - H.min())
    if W:
        cx, cy, Rr, dev = R.fit_circle(Xf)
        om = ang_freq(Xf, (cx, cy), t)
        line += '\n      fixed-frame circle c=(%.8f,%.8f) r=%.8f dev=%.1e  freq=%.12f  2W/7=%.12f  relerr=%.1e' % (
            cx, cy, Rr, dev, om, 2 * W / 7, abs(om / (2 * W / 7) - 1))
    else:
        d = Xf[-1] - Xf[0]; u = d / np.linalg.norm(d)
        line += '\n      straight line: perp dev %.1e, speed spread %.1e' % (
            np.max(np.abs((Xf - Xf[0]) @ np.array([-u[1], u[0]]))), np.ptp(np.hypot(*Xd)))
    print(line)

import sys
SYM = len(sys.argv) > 1 and sys.argv[1] == 'sym'
print('SYM =', SYM)
print('#### 2. discrete scheme, h=0.001, fixed-frame circle fits (>= one full period)')
for W, X1, w0 in [(1.0, [2, 0], [0.3, -1.0, 0.7]), (1.5, [2, 0], [0.0, -2.0, 0.0]), (1.0, [2, 0], [0.0, 1.0, 0.0]),
                  (1.5, [2, 0], R.cayinv(R.rot_thesis('y', 0.002)) * 2 / 0.001)]:
    h = 0.001; P = R.Params(h, W, sym=SYM)
    T = 7 * np.pi / W * 1.1; N = int(T / h) + 1
    X, XI, its = R.simulate(np.array(X1, float), np.array(w0, float) * h / 2, P, N)
    t = h * np.arange(N)
    Xf = R.to_fixed(X, t, W)
    cx, cy, Rr, dev = R.fit_circle(Xf)
    om = ang_freq(Xf, (cx, cy), t)
    Es = R.energies(X, XI, P)['E_sk   (w=sk(F)/2h, Xmid)']
    print('  W=%.1f X1=%s w0=2xi1/h=%s N=%d: centre (%.8f, %.8f) radius %.8f maxdev %.2e' % (W, X1, np.round(w0, 6), N, cx, cy, Rr, dev))
    print('      freq %.10f vs 2W/7 %.10f relerr %.2e ; period %.8f vs 7pi/W %.8f ; E_sk rel var %.2e ; Newton its mean %.2f max %d' % (
        om, 2 * W / 7, abs(om / (2 * W / 7) - 1), 2 * np.pi / om, 7 * np.pi / W, np.ptp(Es) / abs(Es[0]), its.mean(), its.max()))

print('#### 3. convergence order vs ODE (exact start: X_1=X(0), F_1=R(h)R(0)^T from ODE)')
for W, X0, w0 in [(1.0, [2, 0], [0.3, -1.0, 0.7]), (1.5, [1, 0.5], [1.0, 2.0, -0.5])]:
    T = 2.0
    errs = []
    hs = [0.04, 0.02, 0.01, 0.005, 0.0025]
    for h in hs:
        sol = R.ode_solve(np.array(X0, float), np.array(w0, float), W, T)
        Rh = sol.sol(h)[5:14].reshape(3, 3)
        N = int(round(T / h)) + 1
        P = R.Params(h, W, sym=SYM)
        X, XI, its = R.simulate(np.array(X0, float), R.cayinv(Rh), P, N)
        XT = sol.sol(T)[0:2]
        errs.append(np.linalg.norm(X[-1] - XT))
    print('  W=%.1f X0=%s w0=%s  |X_h(T)-X(T)| at T=2:' % (W, X0, w0))
    for i, h in enumerate(hs):
        print('     h=%-7g err=%.3e %s' % (h, errs[i], '' if i == 0 else 'order=%.3f' % np.log2(errs[i - 1] / errs[i])))
    # versus tiny h (self-convergence)
    P = R.Params(1e-4, W, sym=SYM)
    sol = R.ode_solve(np.array(X0, float), np.array(w0, float), W, T)
    X, XI, its = R.simulate(np.array(X0, float), R.cayinv(sol.sol(1e-4)[5:14].reshape(3, 3)), P, 20001)
    print('     h=1e-4 vs ODE err=%.3e' % np.linalg.norm(X[-1] - sol.sol(T)[0:2]))
