//! Loop area (PHYSICS.md §4, estimator 1): for an ordered closed loop of points, the sum over the
//! d planes (q_k, p_k) of the shoelace area ½ Σ_i (q_i p_{i+1} − q_{i+1} p_i), in f64 about the
//! centroid. This is ∮ p·dq (the Poincaré invariant), preserved by every symplectic map.
//! Without refinement it is the area of the polygon through the evolved nodes: exact for linear
//! flows, and an underestimate once the loop shears between nodes.

use crate::ensemble::State;
use crate::float::Real;

/// The loop's area, or None when a node is non-finite (the polygon is then undefined).
pub fn loop_area<T: Real>(s: &State<T>) -> Option<f64> {
    let (n, d) = (s.n, s.d);
    if n < 3 {
        return None;
    }
    let mut total = 0.0;
    for k in 0..d {
        let q = &s.q[k * n..(k + 1) * n];
        let p = &s.p[k * n..(k + 1) * n];
        if q.iter().chain(p).any(|x| !x.is_finite()) {
            return None;
        }
        let qc = q.iter().map(|x| x.to_f64()).sum::<f64>() / n as f64;
        let pc = p.iter().map(|x| x.to_f64()).sum::<f64>() / n as f64;
        let mut twice = 0.0;
        for i in 0..n {
            let j = (i + 1) % n;
            let (qi, pi) = (q[i].to_f64() - qc, p[i].to_f64() - pc);
            let (qj, pj) = (q[j].to_f64() - qc, p[j].to_f64() - pc);
            twice += qi * pj - qj * pi;
        }
        total += 0.5 * twice;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_square_and_orientation() {
        let ccw = State {
            n: 4,
            d: 1,
            nt: 0,
            q: vec![0.0, 1.0, 1.0, 0.0],
            p: vec![0.0, 0.0, 1.0, 1.0],
            unconverged: vec![0; 4],
        };
        assert_eq!(loop_area(&ccw), Some(1.0));
        let cw = State {
            n: 4,
            d: 1,
            nt: 0,
            q: vec![0.0, 0.0, 1.0, 1.0],
            p: vec![0.0, 1.0, 1.0, 0.0],
            unconverged: vec![0; 4],
        };
        assert_eq!(loop_area(&cw), Some(-1.0));
        let bad = State {
            n: 4,
            d: 1,
            nt: 0,
            q: vec![0.0, f64::NAN, 1.0, 0.0],
            p: vec![0.0, 0.0, 1.0, 1.0],
            unconverged: vec![0; 4],
        };
        assert_eq!(loop_area(&bad), None);
    }
}
