use super::super::ops::v;
use super::*;

/// The general form rounds as the per-component expression: rk3's third stage.
#[test]
fn general_assign_equals_the_per_component_expression() {
    let mut b = Block::<f32>::new(5, 1, 0);
    for i in 0..5 {
        b.q0[i] = 0.1 + i as f32 / 3.0;
        b.dq[i] = 1.7 - i as f32 / 7.0;
        b.acc_q[i] = 0.3 * i as f32;
    }
    let (two, h) = (2.0f32, 0.0123f32);
    b.assign(
        Vector::Q,
        &(v(Vector::Q0) + (v(Vector::Dq) * two - v(Vector::AccQ)) * h),
    );
    for i in 0..5 {
        assert_eq!(b.q[i], b.q0[i] + h * (two * b.dq[i] - b.acc_q[i]));
    }
    // reading the destination: the implicit midpoint's 2m − y0
    let before = b.q.clone();
    b.assign(Vector::Q, &(v(Vector::Q) * two - v(Vector::Q0)));
    for (i, &m) in before.iter().enumerate() {
        assert_eq!(b.q[i], two * m - b.q0[i]);
    }
    // a stage slot, allocated on first use
    b.assign(Vector::Stage(3), &(v(Vector::Q) + v(Vector::Dq) * h));
    assert_eq!(b.stages.len(), 4);
    assert_eq!(b.stages[3][2], b.q[2] + h * b.dq[2]);
}
