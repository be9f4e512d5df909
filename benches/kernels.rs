//! Criterion benchmarks of the CPU kernels: one group per method, over ensemble sizes, f32 and
//! f64 (pendulum, 20 steps per iteration). `phaseflow bench` compares the backends in one run.

use std::collections::BTreeMap;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::ensemble::EnsembleRequest;
use phaseflow::method::ALL;
use phaseflow::system::System;

const STEPS: u64 = 20;

fn kernels(c: &mut Criterion) {
    let system = System::new("pendulum", &BTreeMap::new()).unwrap();
    for &method in ALL {
        // `variational` advances only discrete maps.
        if method.check_system(&system).is_err() {
            continue;
        }
        let mut group = c.benchmark_group(method.name());
        group.sample_size(10);
        for points in [10_000usize, 100_000, 1_000_000] {
            let spec = EnsembleRequest::disk(points, 0.3, 0)
                .resolve(&system)
                .unwrap();
            let init = spec.generate(&system, 0.01).unwrap();
            group.throughput(Throughput::Elements(points as u64 * STEPS));
            let mut e32 = CpuEngine::<f32>::new(
                &Integrator::with_default_solver::<f32>(system.clone(), method, 0.01).unwrap(),
                init.convert(),
            );
            group.bench_with_input(BenchmarkId::new("cpu-f32", points), &points, |b, _| {
                b.iter(|| e32.advance(STEPS).unwrap())
            });
            let mut e64 = CpuEngine::<f64>::new(
                &Integrator::with_default_solver::<f64>(system.clone(), method, 0.01).unwrap(),
                init.convert(),
            );
            group.bench_with_input(BenchmarkId::new("cpu-f64", points), &points, |b, _| {
                b.iter(|| e64.advance(STEPS).unwrap())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
