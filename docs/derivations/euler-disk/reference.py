#!/usr/bin/env python3
"""
Reference (numpy, float64) implementation of the discrete Lagrange-d'Alembert
integrator for Euler's disk (thesis sec. 2.2 / Campos et al. 2011), derived in
derive.py and documented in scheme.md.

q = (theta, phi, psi, x, y).  State for stepping: (q_k, v_{k-1}),  v_k = (q_{k+1}-q_k)/h.
Run:  python3 reference.py
"""
import math
import sys
import numpy as np

# ---------------------------------------------------------------- constants
M_, R_, I1_, I3_, G_, E_ = 1.0, 1.0, 1.0, 2.5, 9.8, 0.0


class P:
    def __init__(self, M=M_, r=R_, I1=I1_, I3=I3_, g=G_, e=E_):
        self.r, self.g = r, g
        self.I1 = I1 / (M * r * r)          # Ibar1
        self.I3 = I3 / (M * r * r)          # Ibar3
        self.e = e / 2.0                    # ebar
        self.A11 = 1.0 + self.I1 + self.e ** 2


PAR = P()


# ---------------------------------------------------------------- energy
def kinetic(q, v, p=PAR):
    """Quadratic (kinetic) part of the scaled Lagrangian 2L/(M r^2); full 5 velocities."""
    th, ph = q[0], q[1]
    td, pd, sd, xd, yd = v
    s, c, e, r = math.sin(th), math.cos(th), p.e, p.r
    sf, cf = math.sin(ph), math.cos(ph)
    return (td * td + pd * pd * c * c + (p.I1 + e * e) * (td * td + pd * pd * s * s)
            + p.I3 * (pd * c + sd) ** 2 + (xd * xd + yd * yd) / r ** 2 - e * pd * pd * math.sin(2 * th)
            + 2 * xd * (td * s * sf - pd * c * cf + e * (pd * cf * s + td * c * sf)) / r
            - 2 * yd * (td * s * cf + pd * c * sf - e * (pd * sf * s - td * c * cf)) / r)


def potential(q, p=PAR):
    return 2 * p.g / p.r * (math.sin(q[0]) + p.e * math.cos(q[0]))


def energy(q, v, p=PAR):
    return kinetic(q, v, p) + potential(q, p)


def energy_mid(q, v, h, p=PAR):
    qm = np.asarray(q) + 0.5 * h * np.asarray(v)
    return kinetic(qm, v, p) + potential(qm, p)


def constraint_violation(q, v, p=PAR):
    """|(xdot,ydot) - psidot r u(phi)|, u = -(cos phi, sin phi)."""
    ph = q[1]
    return math.hypot(v[3] + p.r * v[2] * math.cos(ph), v[4] + p.r * v[2] * math.sin(ph))


# ---------------------------------------------------------------- the scheme
def known_side(qk, dold, p=PAR):
    """Pm_a = D2 L_d(q_{k-1}, q_k) . X_a(q_k)   (a = theta, phi, psi).
    dold = q_k - q_{k-1} (all 5 components; may be off the constraint)."""
    a, b, c, dx, dy = dold
    e, r, I3 = p.e, p.r, p.I3
    tm = qk[0] - 0.5 * a                 # theta_{k-1/2}
    pm = qk[1] - 0.5 * b                 # phi_{k-1/2}
    s, co = math.sin(tm), math.cos(tm)
    Cp, Sp = math.cos(pm), math.sin(pm)
    xi = dx * Cp + dy * Sp               # old displacement along (cos pm, sin pm)
    eta = -dx * Sp + dy * Cp             # ... and perpendicular
    sp_ = s + e * co                     # sin tm + e cos tm
    cp_ = co - e * s                     # cos tm - e sin tm
    Gphi = co * co + (p.I1 + e * e) * s * s - e * math.sin(2 * tm)
    dGphi = -(1 - p.I1 - e * e) * math.sin(2 * tm) - 2 * e * math.cos(2 * tm)
    w3 = b * co + c
    dK_da = 2 * p.A11 * a - 2 / r * sp_ * eta
    dK_dtm = b * b * dGphi - 2 * I3 * w3 * b * s - 2 / r * (a * cp_ * eta - b * sp_ * xi)
    dK_db = 2 * b * Gphi + 2 * I3 * co * w3 - 2 / r * cp_ * xi
    dK_dpm = 2 / r * (a * sp_ * xi - b * cp_ * eta)
    d = 0.5 * b                          # phi_k - phi_{k-1/2}
    Pth = dK_da + 0.5 * dK_dtm - p.h2g_r * cp_
    Pph = dK_db + 0.5 * dK_dpm
    Pps = (2 * I3 * w3 - 2 / r * (dx * math.cos(qk[1]) + dy * math.sin(qk[1]))
           + 2 * a * sp_ * math.sin(d) + 2 * b * cp_ * math.cos(d))
    return np.array([Pth, Pph, Pps])


def known_side_reduced(qk, dold, p=PAR):
    """Pm_a with the OLD step taken on the discrete constraint (dx',dy' replaced by
    -r c' (cos, sin)(phi_{k-1/2})); only (a',b',c') = dold[:3] are used.  This is what the
    thesis' Julia code does (x, y never enter the dynamics) and it equals known_side()
    whenever the old step satisfies the discrete constraint (every step after the first)."""
    a, b, c = dold[0], dold[1], dold[2]
    e, I1, I3 = p.e, p.I1, p.I3
    tm = qk[0] - 0.5 * a
    s, co = math.sin(tm), math.cos(tm)
    s2, c2 = math.sin(2 * tm), math.cos(2 * tm)
    Ch, Sh = math.cos(0.5 * b), math.sin(0.5 * b)
    sp_ = s + e * co
    cp_ = co - e * s
    K2 = (1 - I1 + I3 - e * e)
    Gphi3 = co * co * (1 + I3) + (I1 + e * e) * s * s - e * s2
    Pth = 2 * p.A11 * a - 0.5 * b * b * (K2 * s2 + 2 * e * c2) - b * c * ((1 + I3) * s + e * co) - p.h2g_r * cp_
    Pph = 2 * b * Gphi3 + 2 * c * ((1 + I3) * co - e * s) - a * c * sp_
    Pps = 2 * c * (I3 + Ch) + 2 * b * (I3 * co + cp_ * Ch) + 2 * a * sp_ * Sh
    return np.array([Pth, Pph, Pps])


MODE = 'reduced'     # 'reduced' (thesis code, default) or 'full' (general D2 L_d incl. off-constraint dx',dy')


def residual_and_jacobian(thk, u, Pm, p=PAR):
    """R(u) = F(u) + Pm, u = (a,b,c) = (Dtheta_k, Dphi_k, Dpsi_k), new step on the discrete constraint."""
    a, b, c = u
    e, I1, I3 = p.e, p.I1, p.I3
    tm = thk + 0.5 * a
    s, co = math.sin(tm), math.cos(tm)
    s2, c2 = math.sin(2 * tm), math.cos(2 * tm)
    Ch, Sh = math.cos(0.5 * b), math.sin(0.5 * b)
    sp_ = s + e * co
    cp_ = co - e * s
    K2 = (1 - I1 + I3 - e * e)
    Gphi3 = co * co * (1 + I3) + (I1 + e * e) * s * s - e * s2      # = Gphi + I3 cos^2
    Rth = -2 * p.A11 * a - 0.5 * b * b * (K2 * s2 + 2 * e * c2) - b * c * ((1 + I3) * s + e * co) - p.h2g_r * cp_ + Pm[0]
    Rph = -2 * b * Gphi3 - 2 * c * ((1 + I3) * co - e * s) - a * c * sp_ + Pm[1]
    Rps = -2 * c * (I3 + Ch) - 2 * b * (I3 * co + cp_ * Ch) + 2 * a * sp_ * Sh + Pm[2]
    J = np.empty((3, 3))
    # d/da acts on a and on tm (dtm/da = 1/2)
    J[0, 0] = -2 * p.A11 - 0.5 * b * b * (K2 * c2 - 2 * e * s2) - 0.5 * b * c * ((1 + I3) * co - e * s) + 0.5 * p.h2g_r * sp_
    J[0, 1] = -b * (K2 * s2 + 2 * e * c2) - c * ((1 + I3) * s + e * co)
    J[0, 2] = -b * ((1 + I3) * s + e * co)
    J[1, 0] = b * (K2 * s2 + 2 * e * c2) + I3 * c * s - 0.5 * a * c * cp_
    J[1, 1] = -2 * Gphi3
    J[1, 2] = -2 * ((1 + I3) * co - e * s) - a * sp_
    J[2, 0] = b * (I3 * s + sp_ * Ch) + 2 * sp_ * Sh + a * cp_ * Sh
    J[2, 1] = c * Sh - 2 * (I3 * co + cp_ * Ch) + b * cp_ * Sh + a * sp_ * Ch
    J[2, 2] = -2 * (I3 + Ch)
    return np.array([Rth, Rph, Rps]), J


def solve3(J, R):
    """Gaussian elimination with partial pivoting (what a port should do; np.linalg.solve for 3x3 is LAPACK)."""
    A = [list(J[i]) + [R[i]] for i in range(3)]
    for k in range(3):
        piv = max(range(k, 3), key=lambda i: abs(A[i][k]))
        A[k], A[piv] = A[piv], A[k]
        for i in range(k + 1, 3):
            f = A[i][k] / A[k][k]
            for j in range(k, 4):
                A[i][j] -= f * A[k][j]
    xsol = [0.0, 0.0, 0.0]
    for i in (2, 1, 0):
        xsol[i] = (A[i][3] - sum(A[i][j] * xsol[j] for j in range(i + 1, 3))) / A[i][i]
    return np.array(xsol)


NEWTON_RTOL = 1e-12
NEWTON_CAP = 20
stats = {'max_it': 0, 'cap_hits': 0}


def step(qk, vold, h, p=PAR, Pm=None):
    """Given q_k and v_{k-1} (=(q_k-q_{k-1})/h), return (q_{k+1}, v_k).
    If Pm is given it overrides the known side (used for the momentum start)."""
    p.h2g_r = h * h * p.g / p.r
    dold = h * np.asarray(vold, dtype=float)
    if Pm is None:
        Pm = known_side(qk, dold, p) if MODE == 'full' else known_side_reduced(qk, dold, p)
    u = dold[:3].copy()                              # initial guess: previous increments
    it = 0
    while True:
        it += 1
        R, J = residual_and_jacobian(qk[0], u, Pm, p)
        du = solve3(J, R)
        u = u - du
        if np.max(np.abs(du)) <= NEWTON_RTOL * np.max(np.abs(u)) + 1e-300 or it >= NEWTON_CAP:
            break
    stats['max_it'] = max(stats['max_it'], it)
    if it >= NEWTON_CAP:
        stats['cap_hits'] += 1
    a, b, c = u
    pm = qk[1] + 0.5 * b
    dnew = np.array([a, b, c, -p.r * c * math.cos(pm), -p.r * c * math.sin(pm)])
    return qk + dnew, dnew / h


def momentum_start(q0, v0, h, p=PAR):
    """Second-order start from a continuous state (q0, v0) (v0 on the constraint):
    use Pm_a = h * dK/dv(q0, v0)/1 . X_a(q0)  (continuous momentum, scaled like D2 L_d)."""
    eps = 1e-6
    grad = np.zeros(5)
    for i in range(5):          # dK/dv exactly: K is quadratic -> central difference is exact up to rounding
        vp, vm = np.array(v0, float), np.array(v0, float)
        vp[i] += eps
        vm[i] -= eps
        grad[i] = (kinetic(q0, vp, p) - kinetic(q0, vm, p)) / (2 * eps)
    Xps = np.array([0, 0, 1, -p.r * math.cos(q0[1]), -p.r * math.sin(q0[1])])
    Pm = h * np.array([grad[0], grad[1], grad @ Xps])
    return step(np.array(q0, float), np.array(v0, float), h, p, Pm=Pm)


def run(q1, q2, h, nsteps, p=PAR, keep=True):
    """Thesis-style start: q1, q2 given; returns arrays Q (q_1..), V (v_1..)."""
    q = np.array(q2, float)
    v = (np.array(q2, float) - np.array(q1, float)) / h
    Q = [np.array(q1, float), q.copy()]
    Vs = [v.copy()]
    for _ in range(nsteps):
        qn, v = step(q, v, h, p)
        Vs.append(v)
        q = qn
        Q.append(q.copy())
    return np.array(Q), np.array(Vs)


# ---------------------------------------------------------------- self-tests against numerical D1/D2 of L_d
def Ld_num(qa, qb, h, p=PAR):
    qa, qb = np.asarray(qa), np.asarray(qb)
    mid = 0.5 * (qa + qb)
    return kinetic(mid, qb - qa, p) - h * h * potential(mid, p)


def selftest():
    rng = np.random.default_rng(1)
    h = 0.05
    worst = 0
    for ev in (0.0, 0.3):
        p = P(e=2 * ev)
        p.h2g_r = h * h * p.g / p.r
        for _ in range(20):
            qk = rng.normal(size=5)
            dold = rng.normal(size=5) * 0.2
            u = rng.normal(size=3) * 0.2
            pm = qk[1] + u[1] / 2
            qn = qk + np.array([u[0], u[1], u[2], -p.r * u[2] * math.cos(pm), -p.r * u[2] * math.sin(pm)])
            qo = qk - dold
            X = [np.eye(5)[0], np.eye(5)[1], np.array([0, 0, 1, -p.r * math.cos(qk[1]), -p.r * math.sin(qk[1])])]
            eps = 1e-6
            D1 = np.zeros(5)
            D2 = np.zeros(5)
            for i in range(5):
                dq = np.zeros(5)
                dq[i] = eps
                D1[i] = (Ld_num(qk + dq, qn, h, p) - Ld_num(qk - dq, qn, h, p)) / (2 * eps)
                D2[i] = (Ld_num(qo, qk + dq, h, p) - Ld_num(qo, qk - dq, h, p)) / (2 * eps)
            Rnum = np.array([X[a] @ (D1 + D2) for a in range(3)])
            Pm = known_side(qk, dold, p)
            R, J = residual_and_jacobian(qk[0], u, Pm, p)
            worst = max(worst, np.max(np.abs(R - Rnum)))
            # Jacobian check
            Jn = np.zeros((3, 3))
            for j in range(3):
                du = np.zeros(3)
                du[j] = 1e-6
                Jn[:, j] = (residual_and_jacobian(qk[0], u + du, Pm, p)[0] - residual_and_jacobian(qk[0], u - du, Pm, p)[0]) / 2e-6
            worst = max(worst, np.max(np.abs(J - Jn)))
            # reduced known side == full known side when the old step is on the discrete constraint
            pmo = qk[1] - dold[1] / 2
            don = np.array([dold[0], dold[1], dold[2], -p.r * dold[2] * math.cos(pmo), -p.r * dold[2] * math.sin(pmo)])
            worst = max(worst, np.max(np.abs(known_side(qk, don, p) - known_side_reduced(qk, don, p))))
    print(f"selftest: max |analytic - numerical| over residual and Jacobian = {worst:.2e}")
    assert worst < 1e-7


# ---------------------------------------------------------------- continuous LdA equations (for checks)
def make_continuous(p=PAR):
    import sympy as sp
    qs = sp.symbols('q0:5')
    vs = sp.symbols('v0:5')
    th, ph = qs[0], qs[1]
    td, pd, sd, xd, yd = vs
    S, C = sp.sin, sp.cos
    e, r, g = p.e, p.r, p.g
    L = (td**2 + pd**2 * C(th)**2 + (p.I1 + e**2) * (td**2 + pd**2 * S(th)**2) + p.I3 * (pd * C(th) + sd)**2
         + (xd**2 + yd**2) / r**2 - e * pd**2 * S(2 * th)
         + 2 * xd * (td * S(th) * S(ph) - pd * C(th) * C(ph) + e * (pd * C(ph) * S(th) + td * C(th) * S(ph))) / r
         - 2 * yd * (td * S(th) * C(ph) + pd * C(th) * S(ph) - e * (pd * S(ph) * S(th) - td * C(th) * C(ph))) / r
         - 2 * g / r * (S(th) + e * C(th)))
    Mm = sp.Matrix(5, 5, lambda i, j: sp.diff(L, vs[i], vs[j]))
    f = sp.Matrix([sum(sp.diff(L, vs[i], qs[j]) * vs[j] for j in range(5)) - sp.diff(L, qs[i]) for i in range(5)])
    Mf = sp.lambdify([qs, vs], Mm, 'numpy')
    ff = sp.lambdify([qs, vs], f, 'numpy')

    def rhs(t, z):
        qq, vv = z[:5], z[5:]
        A = np.array([[0, 0, r * math.cos(qq[1]), 1, 0], [0, 0, r * math.sin(qq[1]), 0, 1.0]])
        Adv = np.array([-r * math.sin(qq[1]) * vv[1] * vv[2], r * math.cos(qq[1]) * vv[1] * vv[2]])
        K = np.zeros((7, 7))
        K[:5, :5] = np.array(Mf(qq, vv), float)
        K[:5, 5:] = -A.T
        K[5:, :5] = A
        rhs_ = np.concatenate([-np.array(ff(qq, vv), float).ravel(), -Adv])
        sol = np.linalg.solve(K, rhs_)
        return np.concatenate([vv, sol[:5]])
    return rhs


def on_constraint(q, thd, phd, psd, p=PAR):
    return np.array([thd, phd, psd, -p.r * psd * math.cos(q[1]), -p.r * psd * math.sin(q[1])])


# ---------------------------------------------------------------- experiments
def fmt(v):
    return "[" + ", ".join(f"{x:.17g}" for x in v) + "]"


def report_run(name, q1, q2, h, n):
    stats['max_it'] = 0
    stats['cap_hits'] = 0
    Q, Vs = run(q1, q2, h, n)
    # energies of (q_k, v_k) for k = 1..n+1 ; index 0 = the given (possibly off-constraint) first velocity
    Ek = np.array([energy(Q[k], Vs[k]) for k in range(len(Vs))])
    Em = np.array([energy_mid(Q[k], Vs[k], h) for k in range(len(Vs))])
    cv_k = max(constraint_violation(Q[k], Vs[k]) for k in range(1, len(Vs)))
    cv_m = max(constraint_violation(Q[k] + 0.5 * h * Vs[k], Vs[k]) for k in range(1, len(Vs)))
    print(f"--- {name}: h={h}, {n} steps (q_1..q_{n+2}), Newton max iters {stats['max_it']}, cap hits {stats['cap_hits']}")
    print(f"    E(q_1,v_1) [given first velocity]    = {Ek[0]:.17g}")
    print(f"    E(q_2,v_2) [first on-constraint step] = {Ek[1]:.17g}")
    print(f"    max rel energy error, at q_k       (k>=2, ref E_2): {np.max(np.abs(Ek[1:] - Ek[1])) / abs(Ek[1]):.3e}")
    print(f"    max rel energy error, at midpoint  (k>=2, ref E_2): {np.max(np.abs(Em[1:] - Em[1])) / abs(Em[1]):.3e}")
    print(f"    (including k=1, at q_k: {np.max(np.abs(Ek - Ek[0])) / abs(Ek[0]):.3e})")
    print(f"    max constraint violation |(xd,yd)-psid r u|: at q_k {cv_k:.3e}, at midpoint {cv_m:.3e}")
    for k in range(min(5, len(Q))):
        print(f"    q_{k+1} = {fmt(Q[k])}")
    for k in range(min(3, len(Vs))):
        print(f"    v_{k+1} = {fmt(Vs[k])}")
    print(f"    q_final (q_{len(Q)}) = {fmt(Q[-1])}")
    print(f"    theta range: [{Q[:,0].min():.6f}, {Q[:,0].max():.6f}]")
    return Q, Vs, Ek, Em


def main():
    np.set_printoptions(precision=17)
    selftest()
    global MODE
    MODE = 'full'
    print("########## MODE = full  (first step: general D2 L_d with the given off-constraint dx',dy')")
    h = 0.001
    report_run("fig17 [full]", [math.pi / 2, 0, 0, 0, 0], [math.pi / 2, h, h, h, h], h, 2**12 - 2)
    MODE = 'reduced'
    print("########## MODE = reduced (thesis code; default below)")
    h = 0.01
    report_run("fig16", [math.pi / 2, 0, 0, 0, 0], [math.pi / 2, h, 0, 0, 0], h, 2**12 - 2)
    h = 0.001
    Q17, V17, Ek17, Em17 = report_run("fig17", [math.pi / 2, 0, 0, 0, 0], [math.pi / 2, h, h, h, h], h, 2**12 - 2)

    # long run
    if '--quick' not in sys.argv:
        h = 0.001
        n = 100000
        Q, Vs = run([math.pi / 2, 0, 0, 0, 0], [math.pi / 2, h, h, h, h], h, n)
        Ek = np.array([energy(Q[k], Vs[k]) for k in range(1, len(Vs))])
        Em = np.array([energy_mid(Q[k], Vs[k], h) for k in range(1, len(Vs))])
        rel = np.abs(Ek - Ek[0]) / abs(Ek[0])
        relm = np.abs(Em - Em[0]) / abs(Em[0])
        print(f"--- long run fig17 IC, h=0.001, {n} steps (t = {n*h:g})")
        for frac in (0.01, 0.1, 0.25, 0.5, 0.75, 1.0):
            m = int(frac * len(rel))
            print(f"    up to step {m:6d}: max rel err at q_k {rel[:m].max():.3e}, at midpoint {relm[:m].max():.3e}")
        # drift: linear fit of the midpoint-energy error over the second half vs first half
        half = len(rel) // 2
        print(f"    mean rel err (midpoint) 1st half {np.mean(Em[:half]-Em[0])/Em[0]:.3e}, 2nd half {np.mean(Em[half:]-Em[0])/Em[0]:.3e}")
        print(f"    mean rel err (q_k)      1st half {np.mean(Ek[:half]-Ek[0])/Ek[0]:.3e}, 2nd half {np.mean(Ek[half:]-Ek[0])/Ek[0]:.3e}")
        print(f"    theta range: [{Q[:,0].min():.6f}, {Q[:,0].max():.6f}]")

    # convergence order against the continuous solution
    from scipy.integrate import solve_ivp
    rhs = make_continuous()
    q0 = np.array([1.2, 0.3, 0.0, 0.0, 0.0])
    v0 = on_constraint(q0, 0.4, 1.5, 2.0)
    sol = solve_ivp(rhs, (0, 1), np.concatenate([q0, v0]), method='DOP853', rtol=1e-12, atol=1e-12, dense_output=True)
    zT = sol.y[:, -1]
    ts = np.linspace(0, 1, 201)
    Ec = [energy(sol.sol(tt)[:5], sol.sol(tt)[5:]) for tt in ts]
    cv = max(constraint_violation(sol.sol(tt)[:5], sol.sol(tt)[5:]) for tt in ts)
    print("--- continuous LdA (DOP853 rtol=atol=1e-12), q0 =", q0, "v0 =", fmt(v0))
    print(f"    energy rel variation over t in [0,1]: {(max(Ec)-min(Ec))/abs(Ec[0]):.3e}; constraint violation {cv:.2e}")
    print(f"    q(1) = {fmt(zT[:5])}")
    # longer continuous run, energy
    sol2 = solve_ivp(rhs, (0, 20), np.concatenate([q0, v0]), method='DOP853', rtol=1e-12, atol=1e-12)
    Ec2 = [energy(sol2.y[:5, i], sol2.y[5:, i]) for i in range(sol2.y.shape[1])]
    print(f"    energy rel variation over t in [0,20]: {(max(Ec2)-min(Ec2))/abs(Ec2[0]):.3e}")
    errs = []
    hs = [0.01, 0.005, 0.0025, 0.00125]
    for hh in hs:
        n = int(round(1 / hh))
        q, v = momentum_start(q0, v0, hh)
        for _ in range(n - 1):
            q, v = step(q, v, hh)
        errs.append(np.max(np.abs(q - zT[:5])))
    print("    momentum start (2nd-order start):")
    for i, hh in enumerate(hs):
        o = "" if i == 0 else f"  order {math.log(errs[i-1]/errs[i], 2):.3f}"
        print(f"      h={hh:<8g} max|q_N - q(1)| = {errs[i]:.3e}{o}")
    # thesis-style start q_{-1} = q0 - h v0 (first order in the start only)
    errs2 = []
    for hh in hs:
        n = int(round(1 / hh))
        Q, _ = run(q0 - hh * v0, q0, hh, n - 1)
        errs2.append(np.max(np.abs(Q[-1] - zT[:5])))
    print("    thesis-style start (q_{-1} = q0 - h v0, v_{-1} = v0):")
    for i, hh in enumerate(hs):
        o = "" if i == 0 else f"  order {math.log(errs2[i-1]/errs2[i], 2):.3f}"
        print(f"      h={hh:<8g} max|q_N - q(1)| = {errs2[i]:.3e}{o}")
    # self-convergence vs h=1e-4 (momentum start)
    href = 1e-4
    q, v = momentum_start(q0, v0, href)
    for _ in range(int(round(1 / href)) - 1):
        q, v = step(q, v, href)
    print(f"    discrete h=1e-4 vs continuous at t=1: {np.max(np.abs(q - zT[:5])):.3e}")
    errs3 = []
    for i, hh in enumerate(hs[:3]):
        n = int(round(1 / hh))
        qq, vv = momentum_start(q0, v0, hh)
        for _ in range(n - 1):
            qq, vv = step(qq, vv, hh)
        errs3.append(np.max(np.abs(qq - q)))
    print("    vs discrete h=1e-4: " + ", ".join(f"h={hh}: {e_:.3e}" for hh, e_ in zip(hs, errs3))
          + "; orders " + ", ".join(f"{math.log(errs3[i-1]/errs3[i], 2):.3f}" for i in (1, 2)))


if __name__ == '__main__':
    main()
