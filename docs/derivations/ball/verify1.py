import numpy as np
from core import *
rng=np.random.default_rng(1)
# 1. explicit vs matrix
for t in range(5):
    xi=rng.normal(size=3)*0.3; eta=rng.normal(size=3)*0.3; X=rng.normal(size=2); h=0.05; W=rng.normal()
    F=cay(xi); Fp=cay(eta)
    rm=residual_matrix(F,Fp,X,h,W)*(1+xi@xi)
    be=beta_explicit(eta,X,h,W)
    print('explicit-vs-matrix', np.max(np.abs(rm-Gres(xi,be,h,W))))
    # Jacobian FD
    e=1e-6; Jfd=np.zeros((3,3))
    for j in range(3):
        d=np.zeros(3); d[j]=e
        Jfd[:,j]=(Gres(xi+d,be,h,W)-Gres(xi-d,be,h,W))/(2*e)
    print('  jac err', np.max(np.abs(Jfd-Gjac(xi,be,h,W))))
    # dX
    print('  dX err', np.max(np.abs(dX(xi)-(F@G-G)[:2])))
