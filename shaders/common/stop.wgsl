// Per-point stop conditions (src/observe/stop.rs): the time after step s of a dispatch of a
// point whose steps taken before it are lo + 65536·hi: t = step · h with the step count
// converted to `real`, as the CPU engine computes it (exact for the step counts an f64
// holds; in f32 exact below 2^24 steps).
fn stop_time(lo: u32, hi: real, s: u32, h: real) -> real {
    return (hi * real(65536.0) + real(lo + s + 1u)) * h;
}
