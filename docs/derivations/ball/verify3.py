import numpy as np
import core, reference as R
rng=np.random.default_rng(5)
for t in range(4):
    eta=rng.normal(size=3)*0.3; xi=rng.normal(size=3)*0.3; X=rng.normal(size=2); h=0.07; W=rng.normal()
    P=R.Params(h,W)
    print(np.max(np.abs(R.beta(eta,X,P)-core.beta_explicit(eta,X,h,W))),
          np.max(np.abs(R.G(xi,R.beta(eta,X,P),P)-core.Gres(xi,core.beta_explicit(eta,X,h,W),h,W))),
          np.max(np.abs(R.DG(xi,R.beta(eta,X,P),P)-core.Gjac(xi,core.beta_explicit(eta,X,h,W),h,W))))
