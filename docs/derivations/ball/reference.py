#!/usr/bin/env python3
"""Reference (float64, numpy) implementation of the CORRECTED discrete nonholonomic
integrator for a homogeneous ball (radius a, mass m, J = 2/5 m a^2) rolling without
slipping on a plane rotating at rate W (=Omega) about gamma = (0,0,1).
Rotating-frame variables.

State at step k:  X_k in R^2 (centre), xi_k in R^3 with F_k = cay(xi_k^) the SPATIAL
attitude increment F_k = R_{k+1} R_k^T (R relative to the rotating frame).
  (discrete spatial angular velocity  w_k ~ 2 xi_k / h)

Step (X_k, xi_k) -> (X_{k+1}, xi_{k+1}):
  1. X_{k+1} = X_k + a*s*(xi2 + xi3*xi1, -xi1 + xi3*xi2),  s = 2/(1+|xi|^2)
  2. beta = beta(xi_k, X_{k+1})     (explicit, see beta())
  3. solve G(xi) = 2 g(xi) - (1+|xi|^2) beta = 0 by Newton, start xi = xi_k.
"""
import sys
import numpy as np
from scipy.integrate import solve_ivp

GAM = np.array([0.0, 0.0, 1.0])


# ----------------------------------------------------------------------------- SO(3)
def hat(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def cay(x):
    X = hat(x)
    return np.eye(3) + 2.0 / (1.0 + x @ x) * (X + X @ X)


def cayinv(F):
    S = F - F.T
    return np.array([S[2, 1], S[0, 2], S[1, 0]]) / (1.0 + np.trace(F))


def rot_thesis(axis, th):
    """rotations(n, th) of the thesis' Julia code SO.jl (NOTE: 'y' is R_y(-th) in the
    usual right-handed convention; 'x' and 'z' are the usual ones)."""
    c, s = np.cos(th), np.sin(th)
    if axis == 'x':
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == 'y':
        return np.array([[c, 0, -s], [0, 1, 0], [s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


# ----------------------------------------------------------------------------- scheme
class Params:
    def __init__(self, h, W, a=1.0, m=1.0, J=None, sym=False):
        """sym=False: thesis discrete constraint (34) X_{k+1}-X_k = a P(F-I)gamma   (1st order)
           sym=True : symmetric constraint        X_{k+1}-X_k = a/2 (F-F^T) gamma    (2nd order)"""
        self.sym = sym
        self.t = 0.0 if sym else 1.0                  # multiplies every xi3-coupling term
        self.h, self.W, self.a, self.m = h, W, a, m
        self.J = 0.4 * m * a * a if J is None else J
        self.kap = 2.0 * m * a * a / self.J          # = 5 for the solid ball
        self.hw = h * W
        self.A = -1.0 + 0.25 * self.hw ** 2
        self.q = 2.0 - self.kap * self.A              # = 2 + kap(1 - h^2W^2/4) (=7 at W=0)
        self.c = (1.0 + self.kap) * self.hw           # (1+kap) h W
        self.c3 = (1.0 + self.t * self.kap) * self.hw  # cubic coeff: (1+kap)hW (T) or hW (S)
        self.cx = self.kap / a * self.hw ** 2         # kap h^2 W^2 / a


def dX(xi, P):
    s = 2.0 / (1.0 + xi @ xi)
    t = P.t
    return P.a * s * np.array([xi[1] + t * xi[2] * xi[0], -xi[0] + t * xi[2] * xi[1]])


def beta(eta, X, P):
    """eta = xi_k (previous increment), X = X_{k+1} (current position)."""
    e1, e2, e3 = eta
    sp = 2.0 / (1.0 + eta @ eta)
    kA, hw, kap = P.kap * P.A, P.hw, P.kap
    t = P.t
    b1 = (2 - kA) * e1 + hw * (1 + kap) * e2 + t * kA * e3 * e2 + hw * (t * kap - 1) * e3 * e1
    b2 = (2 - kA) * e2 - hw * (1 + kap) * e1 - t * kA * e3 * e1 + hw * (t * kap - 1) * e3 * e2
    b3 = 2 * e3 + hw * (1 - e3 * e3)
    return np.array([sp * b1 - P.cx * X[1], sp * b2 + P.cx * X[0], sp * b3])


def G(xi, b, P):
    x1, x2, x3 = xi
    p = P.c - P.t * P.kap * P.A * x3
    g = np.array([P.q * x1 - p * x2 - P.c3 * x3 * x1,
                  P.q * x2 + p * x1 - P.c3 * x3 * x2,
                  2 * x3 + P.hw * (1 - x3 * x3)])
    return 2 * g - (1 + xi @ xi) * b


def DG(xi, b, P):
    x1, x2, x3 = xi
    p = P.c - P.t * P.kap * P.A * x3
    kA = P.t * P.kap * P.A
    Jg = np.array([[P.q - P.c3 * x3, -p, kA * x2 - P.c3 * x1],
                   [p, P.q - P.c3 * x3, -kA * x1 - P.c3 * x2],
                   [0.0, 0.0, 2 - 2 * P.hw * x3]])
    return 2 * Jg - 2 * np.outer(b, xi)


def newton(xi0, b, P, rtol=1e-14, maxit=12):
    xi = xi0.copy()
    for it in range(1, maxit + 1):
        d = np.linalg.solve(DG(xi, b, P), G(xi, b, P))
        xi = xi - d
        if np.max(np.abs(d)) <= rtol * np.max(np.abs(xi)) + 1e-300:
            return xi, it
    return xi, maxit


def step(X, xi, P):
    Xn = X + dX(xi, P)
    xin, it = newton(xi, beta(xi, Xn, P), P)
    return Xn, xin, it


def simulate(X1, xi1, P, N):
    """returns X[0..N-1] = X_1..X_N and XI[0..N-2] = xi_1..xi_{N-1} (thesis: N = 2^12)."""
    X = np.zeros((N, 2)); XI = np.zeros((N - 1, 3)); its = np.zeros(N - 2, int)
    X[0] = X1; XI[0] = xi1
    for k in range(N - 2):
        X[k + 1], XI[k + 1], its[k] = step(X[k], XI[k], P)
    X[N - 1] = X[N - 2] + dX(XI[N - 2], P)
    return X, XI, its


# ----------------------------------------------------------------------------- energy
def energies(X, XI, P):
    """Per increment k (uses X_k, X_{k+1}, xi_k). Returns dict of candidate energies."""
    h, m, J, W = P.h, P.m, P.J, P.W
    v = (X[1:] - X[:-1]) / h
    Xm = 0.5 * (X[1:] + X[:-1])
    r2 = np.sum(XI ** 2, axis=1)
    w_cay = 2 * XI / h                                      # Cayley angular velocity
    w_sk = (2 / (1 + r2))[:, None] * XI / h                 # (F-F^T)^vee/(2h)
    r = np.sqrt(r2)
    w_log = np.where(r > 0, 2 * np.arctan(r) / np.where(r > 0, r, 1), 2)[:, None] * XI / h
    V = -0.5 * m * W * W * np.sum(Xm ** 2, axis=1)
    V2 = -0.25 * m * W * W * (np.sum(X[1:] ** 2, axis=1) + np.sum(X[:-1] ** 2, axis=1))
    T = 0.5 * m * np.sum(v ** 2, axis=1)
    out = {
        'E_cay  (w=2xi/h, Xmid)': T + 0.5 * J * np.sum(w_cay ** 2, 1) + V,
        'E_sk   (w=sk(F)/2h, Xmid)': T + 0.5 * J * np.sum(w_sk ** 2, 1) + V,
        'E_log  (w=log F/h, Xmid)': T + 0.5 * J * np.sum(w_log ** 2, 1) + V,
        'E_tr   (J(3-trF)/2h^2, Xmid)': T + 0.5 * J * (4 * r2 / (1 + r2)) / h ** 2 + V,
        'E_cay  (w=2xi/h, trapezoid V)': T + 0.5 * J * np.sum(w_cay ** 2, 1) + V2,
    }
    # thesis' plotted quantity: inertial kinetic energy with w = vee(F-I)/h (lower entries)
    wt = np.zeros_like(XI)
    for k in range(len(XI)):
        F = cay(XI[k]); wt[k] = np.array([F[2, 1], F[0, 2], F[1, 0]]) / h
    gx = np.stack([-Xm[:, 1], Xm[:, 0]], 1)
    out['H_thesis (inertial KE)'] = 0.5 * m * np.sum((v + W * gx) ** 2, 1) \
        + 0.5 * J * (wt[:, 0] ** 2 + wt[:, 1] ** 2 + (wt[:, 2] + W) ** 2)
    return out


# ----------------------------------------------------------------------------- ODE
def ode_rhs(t, y, a, m, J, W):
    X3 = np.array([y[0], y[1], 0.0]); w = y[2:5]; R = y[5:14].reshape(3, 3)
    Xd = a * np.cross(w, GAM)
    rhs = -J * W * np.cross(GAM, w) - m * a * np.cross(GAM, 2 * W * np.cross(GAM, Xd) - W * W * X3)
    wd = np.array([rhs[0] / (J + m * a * a), rhs[1] / (J + m * a * a), rhs[2] / J])
    Rd = hat(w) @ R
    return np.concatenate([Xd[:2], wd, Rd.ravel()])


def ode_solve(X0, w0, W, T, t_eval=None, a=1.0, m=1.0, J=0.4):
    y0 = np.concatenate([X0, w0, np.eye(3).ravel()])
    return solve_ivp(ode_rhs, (0, T), y0, method='DOP853', rtol=1e-12, atol=1e-12,
                     t_eval=t_eval, args=(a, m, J, W), dense_output=True)


def ode_energy(sol_y, W, a=1.0, m=1.0, J=0.4):
    X = sol_y[0:2]; w = sol_y[2:5]
    Xd = a * np.stack([w[1], -w[0]])
    return 0.5 * m * np.sum(Xd ** 2, 0) + 0.5 * J * np.sum(w ** 2, 0) - 0.5 * m * W * W * np.sum(X ** 2, 0)


# ----------------------------------------------------------------------------- helpers
def to_fixed(X, t, W):
    c, s = np.cos(W * t), np.sin(W * t)
    return np.stack([c * X[:, 0] - s * X[:, 1], s * X[:, 0] + c * X[:, 1]], 1)


def fit_circle(P2):
    x, y = P2[:, 0], P2[:, 1]
    Amat = np.stack([x, y, np.ones_like(x)], 1)
    sol = np.linalg.lstsq(Amat, x * x + y * y, rcond=None)[0]
    cx, cy = sol[0] / 2, sol[1] / 2
    R = np.sqrt(sol[2] + cx * cx + cy * cy)
    dev = np.max(np.abs(np.hypot(x - cx, y - cy) - R))
    return cx, cy, R, dev


def fmt(v):
    return '[' + ', '.join('%.17g' % u for u in np.atleast_1d(v)) + ']'


def estats(E, name):
    E0 = E[0]
    rel = (E - E0) / max(abs(E0), 1e-300)
    return '%-32s E0=% .17g  max|E-E0|=%.3e  rel=%.3e  (max-min)=%.3e' % (
        name, E0, np.max(np.abs(E - E0)), np.max(np.abs(rel)), E.max() - E.min())


# ----------------------------------------------------------------------------- experiments
def thesis_experiments(sym):
    N = 2 ** 12
    print('#' * 100); print('VARIANT', 'S (symmetric constraint a/2 (F-F^T) gamma)' if sym else 'T (thesis constraint (34) a P(F-I) gamma)')
    exps = [
        ('(a) W=0,   h=0.001, X1=(0,0), F1=rot x(-0.05)', 0.0, 0.001, [0, 0], rot_thesis('x', -0.05)),
        ('(b) W=0,   h=0.1,   X1=(0,0), F1=rot y(0.3)', 0.0, 0.1, [0, 0], rot_thesis('y', 0.3)),
        ('(c) W=1,   h=0.02,  X1=(0,0), F1=rot y(-0.1)', 1.0, 0.02, [0, 0], rot_thesis('y', -0.1)),
        ('(d) W=1.5, h=0.001, X1=(2,0), F1=rot y(0.002)', 1.5, 0.001, [2, 0], rot_thesis('y', 0.002)),
    ]
    for name, W, h, X1, F1 in exps:
        P = Params(h, W, sym=sym)
        xi1 = cayinv(F1)
        X, XI, its = simulate(np.array(X1, float), xi1, P, N)
        print('=' * 100); print(name, ' N=%d' % N)
        print('  Newton iterations: mean %.2f max %d' % (its.mean(), its.max()))
        for k in range(3):
            print('  k=%d X_k=%s xi_k=%s' % (k + 1, fmt(X[k]), fmt(XI[k])))
        print('  final X_N=%s xi_{N-1}=%s' % (fmt(X[-1]), fmt(XI[-1])))
        En = energies(X, XI, P)
        for key, E in En.items():
            print('  ' + estats(E, key))
        # ODE comparison of Jacobi energy and thesis H (continuous) with w0 = 2 xi1/h
        if W == 0:
            # straight line / constant speed check
            d = X[-1] - X[0]; u = d / np.linalg.norm(d)
            perp = np.max(np.abs((X - X[0]) @ np.array([-u[1], u[0]])))
            sp = np.linalg.norm(X[1:] - X[:-1], axis=1) / h
            print('  straight line: max perp. deviation %.3e (length %.4g), speed %.17g, speed spread %.3e'
                  % (perp, np.linalg.norm(d), sp[0], sp.max() - sp.min()))
        else:
            t = h * np.arange(N)
            Xf = to_fixed(X, t, W)
            cx, cy, R, dev = fit_circle(Xf)
            print('  fixed frame circle fit: centre (%.10g, %.10g) radius %.10g max dev %.3e' % (cx, cy, R, dev))


if __name__ == '__main__':
    thesis_experiments(False)
    thesis_experiments(True)
