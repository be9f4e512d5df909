"""The Zarr store (``store="zarr"``): ``xarray.open_zarr`` of a run's states.zarr gives the
arrays of the run's ``to_xarray()``, value for value; ``phaseflow.open_run`` reads the store
as it reads the .npy files; a sharded run's merged store equals the unsharded run's."""

import numpy as np
import xarray as xr
import zarr

import phaseflow

RUN = dict(system="pendulum", method="verlet", ensemble="disk", points=10000, dt=0.05,
           steps=100, snapshot_every=25, backend="cpu", precision="f64", save_states=True,
           chaos="megno,sali")

STORE = {"state", "state_time", "point", "coordinate", "chaos_megno", "chaos_sali",
         "chaos_sali_min", "chaos_time"}


def opened(folder):
    return xr.open_zarr(folder / "states.zarr", consolidated=False).load()


def test_open_zarr_gives_the_runs_dataset(tmp_path):
    files = phaseflow.run(**RUN, out=tmp_path / "npy")
    run = phaseflow.run(**RUN, store="zarr", out=tmp_path / "zarr")
    assert not (tmp_path / "zarr" / "states").exists()
    assert (tmp_path / "zarr" / "states.zarr" / "zarr.json").is_file()
    want = files.to_xarray()
    # The Run reads the store as it reads the .npy files.
    assert np.array_equal(run.states, files.states)
    assert run.states.dtype == np.float64 and run.states.shape == (5, 10000, 2)
    assert np.array_equal(run.steps, files.steps)
    assert sorted(run.chaos) == sorted(files.chaos)
    for step, block in files.chaos.items():
        assert np.array_equal(run.chaos[step], block, equal_nan=True)
    xr.testing.assert_equal(phaseflow.open_run(tmp_path / "zarr").to_xarray(), want)
    # xarray alone, from the store.
    ds = opened(tmp_path / "zarr")
    assert set(ds.variables) == STORE
    assert ds["state"].dims == ("state_time", "point", "coordinate")
    assert list(ds["coordinate"].values) == ["θ", "p_θ"] == run.components
    xr.testing.assert_equal(ds, want[sorted(ds.data_vars)])
    assert zarr.open_group(str(tmp_path / "zarr" / "states.zarr"), mode="r").attrs["complete"]


def test_a_sharded_runs_merged_store_equals_the_unsharded_one(tmp_path):
    settings = dict(RUN, points=20000, store="zarr")
    phaseflow.run(**settings, out=tmp_path / "whole")
    shards = [phaseflow.run(**settings, shard=f"{k}/3", out=tmp_path / f"shard-{k}")
              for k in range(3)]
    merged = phaseflow.merge([s.out for s in shards], out=tmp_path / "merged")
    whole = opened(tmp_path / "whole")
    xr.testing.assert_identical(opened(tmp_path / "merged"), whole)
    assert np.isfinite(whole["state"].values).all()
    xr.testing.assert_equal(merged.to_xarray(), phaseflow.open_run(tmp_path / "whole").to_xarray())


ESCAPES = dict(system="henon-heiles", method="verlet", ensemble="disk", points=1000, dt=0.02,
               steps=600, snapshot_every=300, center=(0, 0, 0.7, 0), radius=0.05,
               precision="f64", backend="cpu")


def test_the_store_holds_the_section_and_the_stops(tmp_path):
    for name, extra in [("stops", dict(stop_when="q1^2 + q2^2 > 4")),
                        ("section", dict(section="q1=0"))]:
        files = phaseflow.run(**ESCAPES, **extra, out=tmp_path / f"{name}-npy")
        run = phaseflow.run(**ESCAPES, **extra, store="zarr", out=tmp_path / f"{name}-zarr")
        assert not (tmp_path / f"{name}-zarr" / f"{name}.npy").exists()
        want = getattr(files, name)
        assert want is not None and len(want) > 50
        assert np.array_equal(getattr(run, name), want)
        reopened = phaseflow.open_run(tmp_path / f"{name}-zarr")
        assert np.array_equal(getattr(reopened, name), want)
        whole = files.to_xarray()
        xr.testing.assert_equal(reopened.to_xarray(), whole)
        # xarray alone, from the store: the table with its columns' names.
        ds = opened(tmp_path / f"{name}-zarr")
        assert set(ds.data_vars) == {name}
        xr.testing.assert_equal(ds[name], whole[name])
