//! Classic methods with known properties, their coefficients computed in f64 from the exact
//! forms of GNI (Hairer, Lubich, Wanner, Geometric Numerical Integration, 2nd ed.) Tables
//! II.1.1–II.1.4 and HNW II (Hairer, Nørsett, Wanner, Solving ODEs II) Table IV.5.6, or from
//! the original papers where GNI gives decimals.

use super::builtin::tableau;
use crate::method::tableau::{Composition, Family, Prk, Rkn, Tableau};

pub fn rk(a: Vec<Vec<f64>>, b: Vec<f64>) -> Family {
    Family::Rk(tableau(a, b))
}

pub fn gauss1() -> Family {
    rk(vec![vec![0.5]], vec![1.0])
}

pub fn gauss2_tableau() -> Tableau {
    let r = 3f64.sqrt() / 6.0;
    tableau(
        vec![vec![0.25, 0.25 - r], vec![0.25 + r, 0.25]],
        vec![0.5, 0.5],
    )
}

pub fn gauss2() -> Family {
    Family::Rk(gauss2_tableau())
}

pub fn rk4_tableau() -> Tableau {
    match super::builtin::family("rk4") {
        Some(Family::Rk(t)) => t,
        other => panic!("rk4 is a Runge–Kutta method: {other:?}"),
    }
}

pub fn gauss3() -> Family {
    let r = 15f64.sqrt();
    rk(
        vec![
            vec![5.0 / 36.0, 2.0 / 9.0 - r / 15.0, 5.0 / 36.0 - r / 30.0],
            vec![5.0 / 36.0 + r / 24.0, 2.0 / 9.0, 5.0 / 36.0 - r / 24.0],
            vec![5.0 / 36.0 + r / 30.0, 2.0 / 9.0 + r / 15.0, 5.0 / 36.0],
        ],
        vec![5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0],
    )
}

/// Lobatto IIIA for q, IIIB for p, 3 stages (GNI II.2, Table 2.2).
pub fn lobatto_iiia_iiib_3() -> Family {
    let b = vec![1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0];
    Family::Prk(Prk {
        q: tableau(
            vec![
                vec![0.0, 0.0, 0.0],
                vec![5.0 / 24.0, 1.0 / 3.0, -1.0 / 24.0],
                vec![1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
            ],
            b.clone(),
        ),
        p: tableau(
            vec![
                vec![1.0 / 6.0, -1.0 / 6.0, 0.0],
                vec![1.0 / 6.0, 1.0 / 3.0, 0.0],
                vec![1.0 / 6.0, 5.0 / 6.0, 0.0],
            ],
            b,
        ),
    })
}

pub fn radau_iia_2() -> Family {
    rk(
        vec![vec![5.0 / 12.0, -1.0 / 12.0], vec![0.75, 0.25]],
        vec![0.75, 0.25],
    )
}

pub fn radau_iia_3() -> Family {
    let r = 6f64.sqrt();
    let last = vec![(16.0 - r) / 36.0, (16.0 + r) / 36.0, 1.0 / 9.0];
    rk(
        vec![
            vec![
                (88.0 - 7.0 * r) / 360.0,
                (296.0 - 169.0 * r) / 1800.0,
                (-2.0 + 3.0 * r) / 225.0,
            ],
            vec![
                (296.0 + 169.0 * r) / 1800.0,
                (88.0 + 7.0 * r) / 360.0,
                (-2.0 - 3.0 * r) / 225.0,
            ],
            last.clone(),
        ],
        last,
    )
}

pub fn backward_euler() -> Family {
    rk(vec![vec![1.0]], vec![1.0])
}

/// Heun's second-order method: its order-3 conditions fail.
pub fn heun2() -> Family {
    rk(vec![vec![0.0, 0.0], vec![1.0, 0.0]], vec![0.5, 0.5])
}

fn over_verlet(weights: Vec<f64>) -> Family {
    Family::Composition(Composition::new("verlet", weights))
}

/// Yoshida's triple jump from its exact weights 1/(2 − 2^{1/3}), −2^{1/3}/(2 − 2^{1/3}).
pub fn triple_jump() -> Family {
    let c = 2f64.powf(1.0 / 3.0);
    let w = 1.0 / (2.0 - c);
    over_verlet(vec![w, -c * w, w])
}

/// Kahan and Li 1997, s17odr8a: 17 stages, order 8 (the 26-digit weights of the paper).
pub fn kahan_li8() -> Family {
    palindrome(&[
        "0.13020248308889008087881763",
        "0.56116298177510838456196441",
        "-0.38947496264484728640807860",
        "0.15884190655515560089621075",
        "-0.39590389413323757733623154",
        "0.18453964097831570709183254",
        "0.25837438768632204729397911",
        "0.29501172360931029887096624",
        "-0.60550853383003451169892108",
    ])
}

/// McLachlan 1995, order 8 with 15 stages (the middle weight last).
pub fn mclachlan8() -> Family {
    palindrome(&[
        "0.74167036435061295344822780",
        "-0.40910082580003159399730010",
        "0.19075471029623837995387626",
        "-0.57386247111608226665638773",
        "0.29906418130365592384446354",
        "0.33462491824529818378495798",
        "0.31529309239676659663205666",
        "-0.79688793935291635401978884",
    ])
}

/// Weights w_1 … w_m, w_{m−1} … w_1 (`half` ends with the middle one), each the f64 nearest
/// the paper's decimal.
fn palindrome(half: &[&str]) -> Family {
    let half: Vec<f64> = half.iter().map(|x| x.parse().unwrap()).collect();
    let mut w = half.clone();
    w.extend(half.iter().rev().skip(1));
    over_verlet(w)
}

/// A Runge–Kutta method as the Nyström method it gives on q'' = g(q): ā = A², b̄ = bA, b, c.
pub fn as_rkn(t: &Tableau) -> Family {
    let s = t.stages();
    let a2 = (0..s)
        .map(|i| {
            (0..s)
                .map(|j| (0..s).map(|k| t.a[i][k] * t.a[k][j]).sum())
                .collect()
        })
        .collect();
    let b_bar = (0..s)
        .map(|j| (0..s).map(|i| t.b[i] * t.a[i][j]).sum())
        .collect();
    Family::Rkn(Rkn {
        a: a2,
        b_bar,
        b: t.b.clone(),
        c: t.c.clone(),
    })
}

/// Velocity Verlet as a 2-stage Nyström method: Q1 = q0, Q2 = q1.
pub fn verlet_rkn() -> Family {
    Family::Rkn(Rkn {
        a: vec![vec![0.0, 0.0], vec![0.5, 0.0]],
        b_bar: vec![0.5, 0.0],
        b: vec![0.5, 0.5],
        c: vec![0.0, 1.0],
    })
}

/// One step of `family` from (q, p) on `system` in f64, written independently of the engine:
/// (partitioned) Runge–Kutta stages solved by fixed-point iteration to convergence, kicks and
/// drifts as written, compositions as repeated steps (`base` finds the base by name).
pub fn reference_step(
    system: &crate::system::HamiltonianSystem,
    family: &Family,
    base: &dyn Fn(&str) -> Option<Family>,
    q: &mut [f64],
    p: &mut [f64],
    h: f64,
) {
    let d = q.len();
    match family {
        Family::Rk(t) => prk_step(system, t, t, q, p, h),
        Family::Prk(Prk { q: tq, p: tp }) => prk_step(system, tq, tp, q, p, h),
        Family::Splitting(steps) => {
            let mut g = vec![0.0; d];
            for s in steps {
                match *s {
                    crate::method::tableau::Substep::Kick(c) => {
                        system.grad_q(q, p, &mut g);
                        p.iter_mut().zip(&g).for_each(|(x, y)| *x -= c * h * y);
                    }
                    crate::method::tableau::Substep::Drift(c) => {
                        system.grad_p(q, p, &mut g);
                        q.iter_mut().zip(&g).for_each(|(x, y)| *x += c * h * y);
                    }
                }
            }
        }
        Family::Composition(Composition {
            base: name,
            weights,
            ..
        }) => {
            let inner = base(name).unwrap();
            for &w in weights {
                reference_step(system, &inner, base, q, p, w * h);
            }
        }
        other => unimplemented!("no built-in is a {} method", other.name()),
    }
}

fn prk_step(
    system: &crate::system::HamiltonianSystem,
    tq: &Tableau,
    tp: &Tableau,
    q: &mut [f64],
    p: &mut [f64],
    h: f64,
) {
    let (s, d) = (tq.stages(), q.len());
    let mut qs = vec![q.to_vec(); s];
    let mut ps = vec![p.to_vec(); s];
    let (mut f, mut g) = (vec![vec![0.0; d]; s], vec![vec![0.0; d]; s]);
    for _ in 0..400 {
        for i in 0..s {
            system.grad_p(&qs[i], &ps[i], &mut f[i]);
            system.grad_q(&qs[i], &ps[i], &mut g[i]);
        }
        for i in 0..s {
            for k in 0..d {
                qs[i][k] = q[k] + h * (0..s).map(|j| tq.a[i][j] * f[j][k]).sum::<f64>();
                ps[i][k] = p[k] - h * (0..s).map(|j| tp.a[i][j] * g[j][k]).sum::<f64>();
            }
        }
    }
    for i in 0..s {
        system.grad_p(&qs[i], &ps[i], &mut f[i]);
        system.grad_q(&qs[i], &ps[i], &mut g[i]);
    }
    for k in 0..d {
        q[k] += h * (0..s).map(|j| tq.b[j] * f[j][k]).sum::<f64>();
        p[k] -= h * (0..s).map(|j| tp.b[j] * g[j][k]).sum::<f64>();
    }
}

/// Blanes and Moan 2002, Table 3, SRKN₁₁ᵇ: 12 kicks and 11 drifts (kick first), order 6 on
/// H = ½p² + V(q) (the paper's 15-digit coefficients).
pub fn blanes_moan_srkn11b() -> Family {
    use crate::method::tableau::Substep::{Drift, Kick};
    let kicks = [
        0.0414649985182624,
        0.198128671918067,
        -0.0400061921041533,
        0.0752539843015807,
        -0.0115113874206879,
        0.2366699247869311,
    ];
    let drifts = [
        0.123229775946271,
        0.290553797799558,
        -0.127049212625417,
        -0.246331761062075,
        0.357208872795928,
        0.20477705429147,
    ];
    let mut half = Vec::new();
    for (b, a) in kicks.iter().zip(&drifts) {
        half.push(Kick(*b));
        half.push(Drift(*a));
    }
    // the middle drift once, then the first half's kicks and drifts backwards
    let mut steps = half.clone();
    steps.extend(half.iter().rev().skip(1));
    Family::Splitting(steps)
}
