//! Polylines cut to a figure's frame: a curve that rises out of a zoomed figure ends on its top
//! edge instead of running over the margins and labels.

/// The parts of the polyline `points` with `lo ≤ y ≤ hi`, each segment cut where it crosses
/// an edge (Liang–Barsky in y alone: x stays within the axis by construction).
pub fn clip_band(points: &[(f64, f64)], (lo, hi): (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    if let [(x, y)] = points {
        if (lo..=hi).contains(y) {
            out.push(vec![(*x, *y)]);
        }
    }
    for w in points.windows(2) {
        let ((xa, ya), (xb, yb)) = (w[0], w[1]);
        let dy = yb - ya;
        let (t0, t1) = if dy == 0.0 {
            if (lo..=hi).contains(&ya) {
                (0.0, 1.0)
            } else {
                (1.0, 0.0)
            }
        } else {
            let (a, b) = ((lo - ya) / dy, (hi - ya) / dy);
            (a.min(b).max(0.0), a.max(b).min(1.0))
        };
        if t0 > t1 {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            continue;
        }
        let at = |t: f64| (xa + t * (xb - xa), ya + t * dy);
        if t0 > 0.0 || current.is_empty() {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            current.push(at(t0));
        }
        current.push(at(t1));
        if t1 < 1.0 {
            out.push(std::mem::take(&mut current));
        }
    }
    out.extend((!current.is_empty()).then_some(current));
    out
}
