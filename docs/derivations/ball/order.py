import numpy as np, reference as R
for sym in (False, True):
  for W, X0, w0 in [(1.0, [2, 0], [0.0, -1.0, 0.0]), (1.0, [2, 0], [0.3, -1.0, 0.7])]:
    T = 2.0; sol = R.ode_solve(np.array(X0, float), np.array(w0, float), W, T)
    XT = sol.sol(T)[0:2]; errs = []; hs = [0.02, 0.01, 0.005]
    ref = None
    for h in hs + [1e-4]:
        N = int(round(T / h)) + 1
        X, XI, its = R.simulate(np.array(X0, float), R.cayinv(sol.sol(h)[5:14].reshape(3, 3)), R.Params(h, W, sym=sym), N)
        errs.append(X[-1])
    e_ode = [np.linalg.norm(x - XT) for x in errs]; e_ref = [np.linalg.norm(x - errs[-1]) for x in errs[:-1]]
    print('%s W=%g w0=%s: vs ODE %s orders %s | vs h=1e-4 %s orders %s | h=1e-4 vs ODE %.1e' % (
        'S' if sym else 'T', W, w0, ['%.2e' % e for e in e_ode[:-1]], ['%.2f' % np.log2(e_ode[i] / e_ode[i + 1]) for i in range(2)],
        ['%.2e' % e for e in e_ref], ['%.2f' % np.log2(e_ref[i] / e_ref[i + 1]) for i in range(2)], e_ode[-1]))
