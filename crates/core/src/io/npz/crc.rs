//! CRC-32 (IEEE), the checksum zip keeps for every member, by a table built at compile time.

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut j = 0;
        while j < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            j += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// CRC-32 (IEEE), as zip uses.
pub fn crc32(data: &[u8]) -> u32 {
    !crc32_update(!0, data)
}

/// The running (not yet inverted) CRC-32 state `c` after `data`: lets a reader check bytes as
/// they pass, without holding them.
pub(super) fn crc32_update(mut c: u32, data: &[u8]) -> u32 {
    for &b in data {
        c = CRC_TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    c
}
