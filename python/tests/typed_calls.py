"""Every function of the package called with its keywords, annotated throughout: `mypy
--strict` checks this file (test_signatures.py), and the tests run it, so an editor's view of
the signatures and what they do agree."""

from pathlib import Path
from typing import Any, Dict, List

import numpy as np

import phaseflow

def call_everything(folder: Path) -> List[str]:
    """Call each function once, small; the names of what came back, for the test to check."""
    r: phaseflow.Run = phaseflow.run(system="pendulum", method="verlet", ensemble="disk",
                                     points=64, dt=0.05, steps=10, backend="cpu",
                                     precision="f64", params={"g": 9.81}, center=[0.5, 0.0],
                                     tangent=True, save_states=True, out=folder / "run")
    s: phaseflow.Sweep = phaseflow.sweep(system="pendulum", method="verlet", ensemble="disk",
                                         points=16, dt=0.05, steps=4, backend="cpu",
                                         sweep="g=1:2:2")
    st: phaseflow.Study = phaseflow.study(out=folder / "study", system="pendulum",
                                          methods=["euler", "verlet"], ensemble="circle",
                                          points=32, dt=0.1, steps=20, portraits=2)
    v: Dict[str, Any] = phaseflow.validate(system="pendulum", method="verlet", ensemble="disk",
                                           points=64, dt=0.05, steps=5, tolerance=1e-3)
    b: Any = phaseflow.bench(system="pendulum", method="verlet", points=256, steps=5,
                             rounds=1, no_gpu=True)
    o: phaseflow.Order = phaseflow.order(out=folder / "order", system="pendulum",
                                         method="verlet", dt=0.1, steps=8, halvings=2,
                                         reference="rk4/4")
    text: str = phaseflow.show_modified_hamiltonian(system="pendulum", method="verlet",
                                                    order=2)
    shards = [folder / f"shard{k}" for k in range(2)]
    for k, shard in enumerate(shards):
        phaseflow.run(system="pendulum", method="verlet", ensemble="disk", points=8192,
                      dt=0.05, steps=2, backend="cpu", shard=f"{k}/2", out=shard)
    m: phaseflow.Run = phaseflow.merge(shards, out=folder / "merged", force=False)
    figures: List[Path] = phaseflow.plot(folder / "run", out=folder / "figures")
    again = phaseflow.resume(folder / "run")
    initial = np.zeros((8, 2), dtype=np.float64)
    i: phaseflow.Run = phaseflow.run(system="pendulum", method="verlet", initial=initial,
                                     dt=0.05, steps=2, backend="cpu")
    ens: phaseflow.Ensemble = phaseflow.Ensemble(system="pendulum", method="verlet",
                                                 ensemble="disk", points=64, dt=0.05,
                                                 backend="cpu", precision="f64",
                                                 snapshot_every=5, params={"g": 9.81})
    ens.advance(10).integrate(1.0)
    ens.params["g"] = 2.0
    ens.set_param("l", 0.5)
    at: float = ens.t
    q_now: np.ndarray = ens.q
    h_now: np.ndarray = ens.energy()
    now: Dict[str, float] = ens.measure()
    names: List[str] = r.components
    assert now["step"] == 20 and names == ["θ", "p_θ"]
    saved: Path = ens.save(folder / "ensemble", steps=40, force=False)
    assert ens.step == 20 and at == 1.0 and q_now.shape == (64, 1) and h_now.shape == (64,)
    assert len(ens.stats) == 5 and saved.is_dir()
    stats: phaseflow.Table = r.stats
    energy: np.ndarray = stats["rel_energy_err_max"]
    times: np.ndarray = r.t
    assert r.q.shape == r.p.shape == (len(times), 64, 1) and len(energy) == len(stats)
    return [type(x).__name__ for x in (r, s, st, v, b, o, text, m, figures, again, i, ens)]
