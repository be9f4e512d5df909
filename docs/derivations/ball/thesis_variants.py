"""Run the thesis scheme literally (eq. 38/39 as printed; body increments F=R_k^T R_{k+1})
and with only the multiplier sign fixed, to show the physical consequences."""
import numpy as np
from scipy.optimize import fsolve
from core import residual_matrix, cay, cayinv, G
import reference as R
def run(W,h,X1,F1,N,sgn):
    X=[np.array(X1,float)]; F=F1; x=cayinv(F1)
    for k in range(N-1):
        Xn=X[-1]+(F@G-G)[:2]; X.append(Xn)
        x=fsolve(lambda y: residual_matrix(cay(y),F,Xn,h,W,thesis=True,sgn=sgn),x,xtol=1e-13)
        F=cay(x)
    return np.array(X)
def freq(X,h,W):
    t=h*np.arange(len(X)); Xf=R.to_fixed(X,t,W); cx,cy,r,dev=R.fit_circle(Xf)
    ph=np.unwrap(np.arctan2(Xf[:,1]-cy,Xf[:,0]-cx)); return np.polyfit(t,ph,1)[0],dev,r
for sgn,lab in [(1,'thesis (38) literal'),(-1,'thesis body model, sign fixed')]:
    for W,h,X1,F1,N in [(1.5,0.001,[2,0],R.rot_thesis('y',0.002),16000),(1.0,0.02,[0,0],R.rot_thesis('y',-0.1),1100)]:
        X=run(W,h,X1,F1,N,sgn)
        f,dev,r=freq(X,h,W)
        print('%-30s W=%g h=%g: fixed-frame fit freq %.5f (2W/7=%.5f), circle maxdev %.2e (radius %.3g), |X| max %.3g'%(lab,W,h,f,2*W/7,dev,r,np.abs(X).max()))
