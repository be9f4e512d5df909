import numpy as np, reference as R
for sym in (False,True):
  for W,X1,w0 in [(1.5,[2,0],[0,-2,0]),(1.0,[2,0],[0.3,-1.0,0.7]),(1.0,[0,0],[0,5,0])]:
    row=[]
    for h in (0.004,0.002,0.001):
        T=10.0; N=int(T/h)+1; P=R.Params(h,W,sym=sym)
        X,XI,its=R.simulate(np.array(X1,float),np.array(w0,float)*h/2,P,N)
        v=(X[1:]-X[:-1])/h; Xm=0.5*(X[1:]+X[:-1]); r2=np.sum(XI**2,1); s=2/(1+r2)
        wsk=s[:,None]*XI/h
        Eh=0.5*np.sum(v**2,1)+0.5*0.4*(wsk[:,0]**2+wsk[:,1]**2)-0.5*W*W*np.sum(Xm**2,1)
        w3m=s*(2*XI[:,2]+h*W*(1-XI[:,2]**2))/(2*h)-W
        Esk=Eh+0.5*0.4*wsk[:,2]**2
        Em=Eh+0.5*0.4*w3m**2
        row.append('h=%g E_sk:%.2e E_h+mom3:%.2e  w3mom spread %.1e'%(h,np.ptp(Esk)/abs(Esk[0]),np.ptp(Em)/abs(Em[0]),np.ptp(w3m)))
    print('sym=%s W=%g X1=%s w0=%s'%(sym,W,X1,w0)); print('   '+'\n   '.join(row))
