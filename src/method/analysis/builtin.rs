//! The built-in methods' coefficients as families (`method::tableau`), equal to what each
//! built-in's code computes on any H it serves (the tests step both on a non-separable H and
//! compare), so `list` can give the built-ins the same verdicts as method files.

use crate::method::tableau::{Composition, Family, Prk, Tableau};
use crate::method::{composition, splitting, verlet, Method};

/// A Butcher tableau with c the row sums of a.
pub fn tableau(a: Vec<Vec<f64>>, b: Vec<f64>) -> Tableau {
    let c = a.iter().map(|row| row.iter().sum()).collect();
    Tableau { a, b, c }
}

/// Lobatto IIIA with 2 stages (the trapezoidal rule).
fn lobatto_iiia_2() -> Tableau {
    tableau(vec![vec![0.0, 0.0], vec![0.5, 0.5]], vec![0.5, 0.5])
}

/// Lobatto IIIB with 2 stages.
fn lobatto_iiib_2() -> Tableau {
    tableau(vec![vec![0.5, 0.0], vec![0.5, 0.0]], vec![0.5, 0.5])
}

/// The coefficients of a method (a built-in's, or a method file's as given); `None` for the variational method, which is a
/// discrete Lagrangian map rather than a method of these families.
pub fn family_of(method: Method) -> Option<Family> {
    let one = |a: f64| tableau(vec![vec![a]], vec![1.0]);
    let over_verlet = |weights: &[f64]| {
        Family::Composition(Composition::new(verlet::INFO.name, weights.to_vec()))
    };
    Some(match method {
        Method::Euler => Family::Rk(one(0.0)),
        // p1 = p0 − h ∂qH(q0, p1), q1 = q0 + h ∂pH(q0, p1): one stage (q0, p1)
        Method::SymplecticEulerA => Family::Prk(Prk {
            q: one(0.0),
            p: one(1.0),
        }),
        // q1 = q0 + h ∂pH(q1, p0), p1 = p0 − h ∂qH(q1, p0): one stage (q1, p0)
        Method::SymplecticEulerB => Family::Prk(Prk {
            q: one(1.0),
            p: one(0.0),
        }),
        // stages (q0, p½) and (q1, p½): Lobatto IIIA for q, IIIB for p (GNI II.2.2)
        Method::Verlet => Family::Prk(Prk {
            q: lobatto_iiia_2(),
            p: lobatto_iiib_2(),
        }),
        // stages (q½, p0) and (q½, p1): the same pair the other way round
        Method::PositionVerlet => Family::Prk(Prk {
            q: lobatto_iiib_2(),
            p: lobatto_iiia_2(),
        }),
        // Kutta's third-order method
        Method::Rk3 => Family::Rk(tableau(
            vec![
                vec![0.0, 0.0, 0.0],
                vec![0.5, 0.0, 0.0],
                vec![-1.0, 2.0, 0.0],
            ],
            vec![1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
        )),
        Method::Rk4 => Family::Rk(tableau(
            vec![
                vec![0.0, 0.0, 0.0, 0.0],
                vec![0.5, 0.0, 0.0, 0.0],
                vec![0.0, 0.5, 0.0, 0.0],
                vec![0.0, 0.0, 1.0, 0.0],
            ],
            vec![1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
        )),
        Method::ImplicitMidpoint => Family::Rk(one(0.5)),
        Method::Yoshida4 => over_verlet(composition::YOSHIDA4.weights),
        Method::Suzuki4 => over_verlet(composition::SUZUKI4.weights),
        Method::Yoshida6 => over_verlet(composition::YOSHIDA6.weights),
        Method::BlanesMoan4 => Family::Splitting(splitting::BLANES_MOAN4.substeps.to_vec()),
        Method::Variational => return None,
        Method::Data(d) => d.family.clone(),
    })
}

/// The coefficients of the method named `name` (`Method::from_name`: a built-in, shipped or
/// loaded method; a resolver for `analyse`'s `base`).
pub fn family(name: &str) -> Option<Family> {
    Method::from_name(name).ok().and_then(family_of)
}
