// Batched Monte Carlo ranking (docs/method.md §3, §4, §7). Twins in cpu.rs.
//
// Scores arrive as integer keys (keys.rs): ascending key = descending score, `words` (1 or 2)
// u32 per score, high word first. Comparing integers is exact on every device, where comparing
// floats could flush subnormals. Ranks break ties towards the lower index.

struct Params {
    items: u32,   // items in this dispatch
    m: u32,       // draws per item
    k: u32,       // candidates per item
    words: u32,   // u32 words per key
    n_cal: u32,   // calibration units (pooled_positions only)
    d0: u32,      // rank_counts: this dispatch counts draws d0..d1 (see below)
    d1: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
// [items][m][k] keys of this dispatch's items.
@group(0) @binding(1) var<storage, read> keys: array<u32>;
// rank_counts: [items][k][k] cumulative counts. pooled_positions: [items][m][k] positions.
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
// pooled_positions: [m][n_cal] calibration keys per draw, ascending (ties by unit index).
@group(0) @binding(3) var<storage, read> cal: array<u32>;
// pooled_positions: [m][n_cal] the calibration units in that order.
@group(0) @binding(4) var<storage, read> cal_units: array<u32>;
// pooled_positions: [items][2k] each item's tie order (docs/method.md §4): the candidates'
// places among the calibration units (candidate c precedes calibration unit j on equal scores
// iff place ≤ j), then their ranks among the candidates.
@group(0) @binding(5) var<storage, read> ties: array<u32>;

const WG: u32 = 64u;

// key(i) < key(j) for score indices i, j in `keys`.
fn less(i: u32, j: u32) -> bool {
    if p.words == 1u {
        return keys[i] < keys[j];
    }
    let hi = keys[2u * i];
    let hj = keys[2u * j];
    return hi < hj || (hi == hj && keys[2u * i + 1u] < keys[2u * j + 1u]);
}

// Rank (0-based) of candidate c among the k keys from `base`: keys below it, or equal to it
// at a lower index.
fn rank_in(base: u32, c: u32) -> u32 {
    var r = 0u;
    for (var o = 0u; o < c; o++) {
        r += select(0u, 1u, !less(base + c, base + o));
    }
    for (var o = c + 1u; o < p.k; o++) {
        r += select(0u, 1u, less(base + o, base + c));
    }
    return r;
}

// Invocation index over a 2-D grid of workgroups (x first), so that a dispatch may exceed the
// per-dimension workgroup count.
fn invocation(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * WG;
}

// One invocation per (item, candidate): its row of k counts, owned alone (no atomics).
//
// A dispatch counts only the draws d0..d1, and the host issues one dispatch per slice of draws
// and then `prefix_sums`, because software rasterizers cap the iterations a loop may run in one
// invocation (llvmpipe/lavapipe stop a loop after 65535, silently): the host keeps
// (d1 − d0)·k below that. On a real GPU the slices cost one extra dispatch each, no more.
@compute @workgroup_size(64)
fn rank_counts(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = invocation(gid, groups);
    if id >= p.items * p.k {
        return;
    }
    let item = id / p.k;
    let c = id % p.k;
    let row = (item * p.k + c) * p.k;
    if p.d0 == 0u {
        for (var j = 0u; j < p.k; j++) {
            out[row + j] = 0u;
        }
    }
    for (var d = p.d0; d < p.d1; d++) {
        let r = rank_in((item * p.m + d) * p.k, c);
        out[row + r] += 1u;
    }
}

// One invocation per (item, candidate): turns its row of rank histograms into cumulative counts.
@compute @workgroup_size(64)
fn prefix_sums(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = invocation(gid, groups);
    if id >= p.items * p.k {
        return;
    }
    let row = id * p.k;
    var sum = 0u;
    for (var j = 0u; j < p.k; j++) {
        sum += out[row + j];
        out[row + j] = sum;
    }
}

// Whether the calibration unit at (draw d, rank r) comes before score index i, whose
// candidate has place g: a lower key, or an equal key and a unit index below g.
fn cal_before(d: u32, r: u32, i: u32, g: u32) -> bool {
    let at = d * p.n_cal + r;
    var lower: bool;
    var equal: bool;
    if p.words == 1u {
        lower = cal[at] < keys[i];
        equal = cal[at] == keys[i];
    } else {
        let hc = cal[2u * at];
        let hi = keys[2u * i];
        let lc = cal[2u * at + 1u];
        let li = keys[2u * i + 1u];
        lower = hc < hi || (hc == hi && lc < li);
        equal = hc == hi && lc == li;
    }
    return lower || (equal && cal_units[at] < g);
}

// Whether key(i) == key(j).
fn same(i: u32, j: u32) -> bool {
    if p.words == 1u {
        return keys[i] == keys[j];
    }
    return keys[2u * i] == keys[2u * j] && keys[2u * i + 1u] == keys[2u * j + 1u];
}

// Rank of candidate c among the k keys from `base` in the tie order: keys below it, or equal
// to it with a lower tie rank; `tr` is where the item's tie ranks start.
fn rank_placed(base: u32, tr: u32, c: u32) -> u32 {
    let rc = ties[tr + c];
    var r = 0u;
    for (var o = 0u; o < p.k; o++) {
        let first = ties[tr + o] < rc;
        r += select(0u, 1u, less(base + o, base + c) || (first && same(base + o, base + c)));
    }
    return r;
}

// One invocation per (test item, draw, candidate): the candidate's position among the n_cal + k
// units of that draw in the tie order: the calibration units before it (higher scores, and equal
// ones with an index below its place), then the item's candidates ranked before it.
@compute @workgroup_size(64)
fn pooled_positions(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = invocation(gid, groups);
    if id >= p.items * p.m * p.k {
        return;
    }
    let b = id / (p.m * p.k);
    let d = (id / p.k) % p.m;
    let c = id % p.k;
    let base = (b * p.m + d) * p.k;
    let g = ties[2u * b * p.k + c];
    var lo = 0u;
    var hi = p.n_cal;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if cal_before(d, mid, base + c, g) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    out[id] = lo + rank_placed(base, (2u * b + 1u) * p.k, c);
}
