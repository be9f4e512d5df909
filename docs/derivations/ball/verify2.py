"""Independent check of the discrete equations: discrete Lagrange-d'Alembert principle
   dS/deps = 0 for variations (dX_k, eta_k) in the continuous constraint distribution at q_k."""
import numpy as np
from scipy.optimize import fsolve
from scipy.linalg import expm
from core import *
a=1.0; m=1.0; J=0.4

def Ld(Xk,Xk1,F,h,W):
    d=Xk1-Xk; s=Xk+Xk1
    return m/(2*h*h)*d@d + m*W*W/8*s@s + m*W/h*(Xk[0]*Xk1[1]-Xk1[0]*Xk[1]) \
        - J/(2*h*h)*np.trace(F@(np.eye(3)+h*W*hat(G)))

def action(Xs,Rs,h,W,spatial):
    S=0
    for k in range(len(Xs)-1):
        F = Rs[k+1]@Rs[k].T if spatial else Rs[k].T@Rs[k+1]
        S+=Ld(Xs[k],Xs[k+1],F,h,W)
    return S

def traj(h,W,X1,F1,N,mode,sgn=1.0):
    Xs=[np.array(X1,float)]; Fs=[F1]
    for k in range(N):
        Xn=Xs[-1]+a*(Fs[-1]@G-G)[:2]
        Xs.append(Xn)
        if k==N-1: break
        if mode=='corr':
            f=lambda x: residual_matrix(cay(x),Fs[-1],Xn,h,W)
        else:
            f=lambda x: residual_matrix(cay(x),Fs[-1],Xn,h,W,thesis=True,sgn=sgn)
        x=fsolve(f,cayinv(Fs[-1]),xtol=1e-15)
        Fs.append(cay(x))
    Rs=[np.eye(3)]
    for F in Fs:
        Rs.append(F@Rs[-1] if mode=='corr' else Rs[-1]@F)
    return Xs,Rs[:len(Xs)]

def dalembert_check(Xs,Rs,h,W,spatial,k):
    out=[]
    for j in range(3):
        eta=np.zeros(3); eta[j]=1.0
        vals=[]
        for e in (1e-5,-1e-5):
            X2=[x.copy() for x in Xs]; R2=[r.copy() for r in Rs]
            X2[k]=X2[k]+e*a*np.cross(eta,G)[:2]
            R2[k]= expm(e*hat(eta))@R2[k] if spatial else R2[k]@expm(e*hat(eta))
            vals.append(action(X2,R2,h,W,spatial))
        out.append((vals[0]-vals[1])/2e-5)
    return np.array(out)

h=0.05; W=1.3
F1=rot('y',0.1)@rot('x',-0.07)@rot('z',0.05)
for mode,spatial,sgn,label in [('corr',True,1,'corrected scheme, spatial variations'),
                                ('thesis',False,1,'thesis (38) as printed, body variations'),
                                ('thesis',False,-1,'thesis (38) with multiplier sign fixed, body variations')]:
    Xs,Rs=traj(h,W,[0.3,-0.2],F1,6,mode,sgn)
    print(label, ' dS/deps (should be 0):', dalembert_check(Xs,Rs,h,W,spatial,3))
