import numpy as np
from scipy.integrate import solve_ivp
from core import residual_matrix, cay, cayinv, G
from scipy.optimize import fsolve
import reference as R, warnings; warnings.simplefilter('ignore')
J=0.4; W=1.5; h=0.001
def rhs(t,y,sg):
    X3=np.array([y[0],y[1],0]); w=y[2:5]; Xd=np.cross(w,G)
    r=-sg*J*W*np.cross(G,w)-np.cross(G,2*W*np.cross(G,Xd)-W*W*X3)
    return np.concatenate([Xd[:2],[r[0]/(J+1),r[1]/(J+1),r[2]/J]])
F1=R.rot_thesis('y',0.002); xi=cayinv(F1); w0=2*xi/h
T=3.0
for sg,lab in [(1,'physical (spatial)'),(-1,'thesis body model (sign-fixed)')]:
    s=solve_ivp(rhs,(0,T),np.concatenate([[2,0],w0]),args=(sg,),rtol=1e-12,atol=1e-12,method='DOP853')
    print(lab,'ODE X(3)=',s.y[0:2,-1])
# discrete sign-fixed body model
X=np.array([2.,0]); F=F1; x=xi
for k in range(int(T/h)):
    Xn=X+(F@G-G)[:2]; X=Xn
    x=fsolve(lambda y: residual_matrix(cay(y),F,Xn,h,W,thesis=True,sgn=-1),x,xtol=1e-13); F=cay(x)
print('discrete thesis body scheme (sign fixed) X(3)=',X)
# characteristic roots of (J+1) Z'' + c i W Z' - W^2 Z = 0
for c,lab in [(J+2,'physical'),(2-J,'body')]:
    print(lab,'roots/W',np.roots([J+1,1j*c,-1]))
