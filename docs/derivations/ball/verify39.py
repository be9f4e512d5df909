import numpy as np
from core import *
rng=np.random.default_rng(2)
def lhs38(xi,h,W,sgn=1):
    F=cay(xi); M=np.eye(3)+h*W*hat(G); A=-1+h*h*W*W/4
    return sk(F@M)+sgn*5*(A*np.eye(3)-h*W*hat(G))@hat(G)@F@G
def eq39(xi,al,h,W):
    A=-1+h*h*W*W/4; r2=xi@xi; q=(xi[2]**2-r2)/(1+r2); hw=h*W
    lhs=al+np.cross(al,xi)
    rhs=(4+10*A-2*hw*xi[2]*(1+5*q)-xi@al)*xi+(2*hw*(1-5*q)-10*A*xi[2])*G-10*hw*(1+q)*np.cross(G,xi)
    return lhs-rhs
for t in range(3):
    xi=rng.normal(size=3)*0.2; h=0.1; W=rng.normal()
    for sgn in (1,-1):
        al=lhs38(xi,h,W,sgn)
        print('sgn',sgn,'eq39 mismatch',eq39(xi,al,h,W))
    # Omega=0
    al=lhs38(xi,h,0.0)
    print(' W=0 eq39 mismatch',eq39(xi,al,h,0.0))
