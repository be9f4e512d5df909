"""Variational check (discrete Lagrange-d'Alembert) of reference.py step for both constraint variants,
   with arbitrary a, m, J (generic kappa)."""
import numpy as np
from scipy.linalg import expm
import reference as R
from core import hat, G as GAM
def Ld(Xk,Xk1,F,h,W,m,J):
    d=Xk1-Xk; s=Xk+Xk1
    return m/(2*h*h)*d@d + m*W*W/8*s@s + m*W/h*(Xk[0]*Xk1[1]-Xk1[0]*Xk[1]) - J/(2*h*h)*np.trace(F@(np.eye(3)+h*W*hat(GAM)))
for sym in (False,True):
  for (a,m,J) in [(1,1,0.4),(0.7,1.3,0.25)]:
    h=0.05; W=1.3; P=R.Params(h,W,a=a,m=m,J=J,sym=sym)
    X=[np.array([0.3,-0.2])]; XI=[np.array([0.05,-0.08,0.03])]
    for k in range(6):
        Xn,xin,it=R.step(X[-1],XI[-1],P); X.append(Xn); XI.append(xin)
    Rs=[np.eye(3)]
    for xi in XI: Rs.append(R.cay(xi)@Rs[-1])
    Rs=Rs[:len(X)]
    def S(Xs,Rs): return sum(Ld(Xs[k],Xs[k+1],Rs[k+1]@Rs[k].T,h,W,m,J) for k in range(len(Xs)-1))
    k=3; out=[]
    for j in range(3):
        eta=np.zeros(3); eta[j]=1; v=[]
        for e in (1e-5,-1e-5):
            X2=[x.copy() for x in X]; R2=[r.copy() for r in Rs]
            X2[k]=X2[k]+e*a*np.cross(eta,GAM)[:2]; R2[k]=expm(e*hat(eta))@R2[k]; v.append(S(X2,R2))
        out.append((v[0]-v[1])/2e-5)
    # constraint check
    F=R.cay(XI[2]); cons = X[3]-X[2] - (a*(F@GAM-GAM)[:2] if not sym else a*0.5*((F-F.T)@GAM)[:2])
    print('sym=%s a,m,J=%s  dS/deps=%s  constraint resid=%.1e'%(sym,(a,m,J),np.array(out),np.abs(cons).max()))
