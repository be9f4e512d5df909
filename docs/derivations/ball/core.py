"""Core formulas: rolling ball on a rotating plane, discrete nonholonomic integrator.

Conventions (CORRECTED scheme):
  R_k  attitude of the ball relative to the rotating frame.
  F_k := R_{k+1} R_k^T   (SPATIAL increment, rotating-frame axes), F_k = cay(xi_k^),
  spatial angular velocity w ~ (F-I)^vee/h ~ 2 xi/h.
  Discrete constraint: X_{k+1} = X_k + a*P(F_k gamma - gamma)   (P = xy projection)
  L_d = m/(2h^2)|dX|^2 + m W^2/8 |X_k+X_{k+1}|^2 + m W/h (x_k y_{k+1} - x_{k+1} y_k)
        - J/(2h^2) tr[F_k (I + h W gamma^)]
"""
import numpy as np

G = np.array([0.0, 0.0, 1.0])


def hat(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def vee(A):
    return np.array([A[2, 1], A[0, 2], A[1, 0]])


def sk(A):
    """(A - A^T)^vee"""
    return vee(A - A.T)


def cay(x):
    X = hat(x)
    return np.eye(3) + 2.0 / (1.0 + x @ x) * (X + X @ X)


def cayinv(F):
    return sk(F) / (1.0 + np.trace(F))


def rot(axis, th):
    c, s = np.cos(th), np.sin(th)
    if axis == 'x':
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == 'y':
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def emb(X):
    return np.array([X[0], X[1], 0.0])


# ---------------------------------------------------------------- matrix form
def residual_matrix(F, Fprev, Xk, h, W, a=1.0, m=1.0, J=0.4, thesis=False, sgn=1.0):
    """Corrected (thesis=False):
         sk(M F_k) - kappa*gam^(A - hW gam^) F_k gam - beta = 0
         beta = sk(F_{k-1} M) + (kappa/a) gam^[(B - hW gam^)X_k + (A + hW gam^)X_{k-1}]
       thesis=True: eq (38) literally (F_k = R_k^T R_{k+1}):
         sk(F_k M) + 5 (A - hW gam^) gam^ F_k gam - alpha = 0
         alpha = sk(M F_{k-1}) - 5/a [ (B - hW gam^) gam^ X_k + (A + hW gam^) gam^ X_{k-1} ]
       X_{k-1} is reconstructed from the constraint X_{k-1} = X_k - a P(F_{k-1} gam - gam).
    """
    kap = 2 * m * a * a / J
    M = np.eye(3) + h * W * hat(G)
    A = -1 + 0.25 * h * h * W * W
    B = 1 + 0.75 * h * h * W * W
    g = hat(G)
    Xk3 = emb(Xk)
    Xkm1 = Xk3 - a * (Fprev @ G - G) * np.array([1, 1, 0])
    if not thesis:
        beta = sk(Fprev @ M) + kap / a * g @ ((B * np.eye(3) - h * W * g) @ Xk3 + (A * np.eye(3) + h * W * g) @ Xkm1)
        return sk(M @ F) - kap * g @ (A * np.eye(3) - h * W * g) @ F @ G - beta
    else:
        # sgn=+1: literally as printed (38); sgn=-1: multiplier sign corrected
        alpha = sk(M @ Fprev) - sgn * kap / a * ((B * np.eye(3) - h * W * g) @ g @ Xk3 + (A * np.eye(3) + h * W * g) @ g @ Xkm1)
        return sk(F @ M) + sgn * kap * (A * np.eye(3) - h * W * g) @ g @ F @ G - alpha


# ---------------------------------------------------------------- explicit form
def beta_explicit(eta, Xk, h, W, a=1.0, m=1.0, J=0.4):
    """beta_k from previous increment eta = xi_{k-1} and X_k (corrected scheme)."""
    kap = 2 * m * a * a / J
    A = -1 + 0.25 * h * h * W * W
    hw = h * W
    e1, e2, e3 = eta
    sp = 2.0 / (1.0 + eta @ eta)
    # gamma x eta = (-e2, e1, 0)
    b1 = 2 * e1 + hw * (e2 - e3 * e1) - kap * A * (e1 - e3 * e2) + kap * hw * (e2 + e3 * e1)
    b2 = 2 * e2 + hw * (-e1 - e3 * e2) - kap * A * (e2 + e3 * e1) + kap * hw * (-e1 + e3 * e2)
    b3 = 2 * e3 + hw * (1 - e3 * e3)
    c = kap / a * hw * hw
    return np.array([sp * b1 - c * Xk[1], sp * b2 + c * Xk[0], sp * b3])


def gfun(xi, h, W, a=1.0, m=1.0, J=0.4):
    kap = 2 * m * a * a / J
    A = -1 + 0.25 * h * h * W * W
    hw = h * W
    x1, x2, x3 = xi
    q = 2 - kap * A          # = 2 + kappa*(1 - h^2W^2/4)
    p = (1 + kap) * hw - kap * A * x3
    return np.array([q * x1 - p * x2 - (1 + kap) * hw * x3 * x1,
                     q * x2 + p * x1 - (1 + kap) * hw * x3 * x2,
                     2 * x3 + hw * (1 - x3 * x3)])


def Gres(xi, beta, h, W, a=1.0, m=1.0, J=0.4):
    """Polynomial residual: G(xi) = 2 g(xi) - (1+|xi|^2) beta  (= (1+|xi|^2) * residual_matrix)."""
    return 2 * gfun(xi, h, W, a, m, J) - (1 + xi @ xi) * beta


def Gjac(xi, beta, h, W, a=1.0, m=1.0, J=0.4):
    kap = 2 * m * a * a / J
    A = -1 + 0.25 * h * h * W * W
    hw = h * W
    x1, x2, x3 = xi
    q = 2 - kap * A
    p = (1 + kap) * hw - kap * A * x3
    c = (1 + kap) * hw
    Jg = np.array([[q - c * x3, -p, kap * A * x2 - c * x1],
                   [p, q - c * x3, -kap * A * x1 - c * x2],
                   [0.0, 0.0, 2 - 2 * hw * x3]])
    return 2 * Jg - 2 * np.outer(beta, xi)


def newton(xi0, beta, h, W, a=1.0, m=1.0, J=0.4, tol=1e-15, maxit=20):
    xi = xi0.copy()
    for it in range(maxit):
        r = Gres(xi, beta, h, W, a, m, J)
        d = np.linalg.solve(Gjac(xi, beta, h, W, a, m, J), r)
        xi = xi - d
        if np.max(np.abs(d)) <= tol * (1.0 + np.max(np.abs(xi))):
            return xi, it + 1
    return xi, maxit


def dX(xi, a=1.0):
    """X_{k+1} - X_k = a P(cay(xi) gamma - gamma) = a s (xi x gamma + xi3 xi_h)"""
    s = 2.0 / (1.0 + xi @ xi)
    return a * s * np.array([xi[1] + xi[2] * xi[0], -xi[0] + xi[2] * xi[1]])
