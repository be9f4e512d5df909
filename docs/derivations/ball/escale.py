import numpy as np, reference as R
key='E_sk   (w=sk(F)/2h, Xmid)'
for sym in (False,True):
  for W,X1,w0 in [(1.5,[2,0],[0,-2,0]),(1.0,[2,0],[0.3,-1.0,0.7])]:
    row=[]
    for h in (0.004,0.002,0.001):
        T=10.0; N=int(T/h)+1; P=R.Params(h,W,sym=sym)
        X,XI,its=R.simulate(np.array(X1,float),np.array(w0,float)*h/2,P,N)
        En=R.energies(X,XI,P)
        row.append(' '.join('%s:%.2e'%(k.split()[0],np.ptp(E)/abs(E[0])) for k,E in En.items() if not k.startswith('H')))
        row[-1]='h=%g '%h+row[-1]
    print('sym=%s W=%g X1=%s w0=%s'%(sym,W,X1,w0)); print('   '+'\n   '.join(row))
