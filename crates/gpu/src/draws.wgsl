// The normal generator of draws.rs, bit for bit: Philox4x32-10 in u32 arithmetic and an
// integer inverse CDF. No float operation touches the result: the f32 is assembled from bits.

struct Params {
    seed_lo: u32,
    seed_hi: u32,
    first: u32,   // first item (Philox counter word 0)
    items: u32,   // items in this dispatch
    m: u32,
    k: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> table: array<u32>;   // draws::table()
@group(0) @binding(2) var<storage, read_write> out: array<u32>; // f32 bits, [items][m][k]

const WG: u32 = 64u;
const SEGMENTS: u32 = 64u;
const FRAC_BITS: u32 = 21u;

// (hi, lo) of the 64-bit product a·b, from 16-bit halves (WGSL has no 64-bit integers).
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let ll = a0 * b0;
    let lh = a0 * b1;
    let hl = a1 * b0;
    let hh = a1 * b1;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    let hi = hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
    return vec2<u32>(hi, a * b);
}

fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = counter;
    var k = key;
    for (var r = 0u; r < 10u; r++) {
        if r > 0u {
            k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
        }
        let p0 = mulhilo(0xD2511F53u, c.x);
        let p1 = mulhilo(0xCD9E8D57u, c.z);
        c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
    }
    return c;
}

fn fixed_to_f32_bits(z: u32, sign: u32) -> u32 {
    if z == 0u {
        return sign << 31u;
    }
    let lead = firstLeadingBit(z);
    let mantissa = (z << (23u - lead)) & 0x7fffffu;
    let exponent = lead + 127u - FRAC_BITS;
    return (sign << 31u) | (exponent << 23u) | mantissa;
}

fn normal_bits(x: u32) -> u32 {
    let sign = x >> 31u;
    let t = (x << 1u) | 1u;
    let e = countLeadingZeros(t);
    let mant = t << e;
    let seg = (mant >> 25u) & 63u;
    let frac = (mant >> 9u) & 0xffffu;
    let row = e * (SEGMENTS + 1u) + seg;
    let z0 = table[row];
    let z1 = table[row + 1u];
    let z = z0 - (((z0 - z1) * frac) >> 16u);
    return fixed_to_f32_bits(z, sign);
}

// One invocation per (item, draw, candidate) of this dispatch.
@compute @workgroup_size(64)
fn normals(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = gid.x + gid.y * groups.x * WG;
    if id >= p.items * p.m * p.k {
        return;
    }
    let item = p.first + id / (p.m * p.k);
    let d = (id / p.k) % p.m;
    let c = id % p.k;
    // Four neighbouring candidates share a block (draws.rs): candidate c takes word c mod 4.
    let w = philox4x32_10(vec4<u32>(item, d, c >> 2u, 1u), vec2<u32>(p.seed_lo, p.seed_hi));
    out[id] = normal_bits(w[c & 3u]);
}
