//! `.npz` archives: a zip of `.npy` members, read by hand (central directory, stored or deflated,
//! zip64) because the core must not pull in a zip crate for wasm.
//!
//! This file holds what an archive is to its callers (members by key, the size limits); the zip
//! directory, a member's bytes from memory or off a reader, inflating and CRC-32 have a file each.

mod crc;
mod directory;
mod extract;
mod inflate;
mod stream;

pub use crc::crc32;
pub(crate) use directory::{entries, entries_in, Tail};
pub(crate) use extract::extract;
pub(crate) use stream::{member_reader, member_stream};

use super::npy::{parse_npy_with, read_u16, read_u32, Layout, NpyArray};
use super::{place, shown, MAX_ELEMENTS};
use crate::{Error, Result};

/// The four bytes a zip file (and so an `.npz`) starts with.
pub const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";

const SIG_LOCAL: u32 = 0x0403_4b50;
const SIG_CENTRAL: u32 = 0x0201_4b50;
const SIG_EOCD: u32 = 0x0605_4b50;
const SIG_ZIP64_EOCD: u32 = 0x0606_4b50;
const SIG_ZIP64_LOCATOR: u32 = 0x0706_4b50;

/// The largest member we inflate: the largest allowed array plus generous room for its header.
const MAX_MEMBER_BYTES: u64 = (MAX_ELEMENTS as u64) * 8 + (1 << 20);

/// The most all members of one archive may inflate to, read together by `parse_npz`.
const MAX_ARCHIVE_BYTES: u64 = 2 * MAX_MEMBER_BYTES;

/// One member as described by the central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub name: String,
    method: u16,
    flags: u16,
    crc: u32,
    csize: u64,
    usize_: u64,
    local_offset: u64,
}

impl Entry {
    /// The member's size uncompressed, as the directory says.
    pub(crate) fn size(&self) -> u64 {
        self.usize_
    }
}

/// Parses every `.npy` member; names lose their `.npy` suffix, directories are skipped.
pub fn parse_npz(file: &str, bytes: &[u8]) -> Result<Vec<(String, NpyArray)>> {
    let entries = entries(file, bytes)?;
    // Each member is bounded on its own, but many directory entries may point at one highly
    // compressed member, and every array read here is kept: bound the sum as well.
    let claimed =
        entries.iter().filter(|e| !e.name.ends_with('/')).fold(0u64, |a, e| a.saturating_add(e.usize_));
    if claimed > MAX_ARCHIVE_BYTES {
        return Err(Error::parse(
            file,
            "archive",
            format!(
                "the members claim {claimed} bytes uncompressed in all, more than the \
                 {MAX_ARCHIVE_BYTES} allowed (twice the largest member, {MAX_ELEMENTS} elements)"
            ),
        ));
    }
    let mut keys: Vec<&str> =
        entries.iter().filter(|e| !e.name.ends_with('/')).map(|e| member_key(&e.name)).collect();
    keys.sort_unstable();
    if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(two_of(file, w[0]));
    }
    let mut out = Vec::new();
    for e in &entries {
        if e.name.ends_with('/') {
            continue;
        }
        let (a, _) = member_array(file, bytes, e)?;
        out.push((member_key(&e.name).to_string(), a));
    }
    Ok(out)
}

/// The member numpy gives for `key`, `None` if there is none. Two members of that key are an
/// error: numpy reads the last, a reader by name the first, and neither is what the file means.
pub(crate) fn find_member<'a>(file: &str, entries: &'a [Entry], key: &str) -> Result<Option<&'a Entry>> {
    let mut found = entries.iter().filter(|e| member_key(&e.name) == key);
    let first = found.next();
    match found.next() {
        Some(_) => Err(two_of(file, key)),
        None => Ok(first),
    }
}

fn two_of(file: &str, key: &str) -> Error {
    Error::parse(
        file,
        "archive",
        format!("the archive holds two members named '{}'; expected one of each", shown(key)),
    )
}

/// The key numpy gives a member: its name without the `.npy` suffix.
pub(crate) fn member_key(name: &str) -> &str {
    name.strip_suffix(".npy").unwrap_or(name)
}

/// Extracts and parses one member, with places prefixed by the member name.
pub(crate) fn member_array(file: &str, bytes: &[u8], e: &Entry) -> Result<(NpyArray, Layout)> {
    let data = extract(file, bytes, e)?;
    parse_npy_with(file, &format!("member '{}'", shown(&e.name)), &data)
}

/// A little-endian `u64` at byte `at`, `None` past the end (zip64 fields; the narrower ones are
/// npy's readers).
fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// An error at byte `at` of member `e`, placed as every message about a member is.
fn member_err(file: &str, e: &Entry, at: u64, message: impl Into<String>) -> Error {
    Error::parse(file, place(&format!("member '{}'", shown(&e.name)), &format!("byte {at}")), message)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::io::npy::{write_npy_f64, write_npy_i64, NpyData};
    use crate::io::test_files::{zip, ZipMember};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// One member of a hand-built zip.
    pub(crate) struct Member<'a> {
        pub name: &'a str,
        pub data: &'a [u8],
        pub deflate: bool,
        /// Write sizes as 0xFFFFFFFF with a zip64 extra field (local header always, central too).
        pub zip64_central: bool,
    }

    /// Builds a zip the way Python's zipfile does for np.savez (zip64 extra in the local header),
    /// with the writer shared with the workspace's tests.
    pub(crate) fn build_zip(members: &[Member]) -> Vec<u8> {
        let members: Vec<ZipMember> = members
            .iter()
            .map(|m| ZipMember {
                name: m.name.as_bytes().to_vec(),
                data: m.data.to_vec(),
                deflate: m.deflate,
                zip64: m.zip64_central,
                zip64_local: true,
                bad_crc: false,
            })
            .collect();
        zip(&members)
    }

    fn sample() -> (Vec<u8>, Vec<u8>) {
        let scores: Vec<f64> = (0..12).map(|i| i as f64 / 4.0).collect();
        (write_npy_f64(&[2, 3, 2], &scores), write_npy_i64(&[2], &[1, 0]))
    }

    #[test]
    fn many_entries_for_one_member_are_bounded_in_all() {
        let (s, _) = sample();
        let members: Vec<Member> = ["a.npy", "b.npy", "c.npy"]
            .into_iter()
            .map(|name| Member { name, data: &s, deflate: true, zip64_central: false })
            .collect();
        let mut zip = build_zip(&members);
        // Each entry claims 1.5 GB, under the member limit; together they are over the archive's.
        let mut at = 0;
        while let Some(p) = zip[at..].windows(4).position(|w| w == SIG_CENTRAL.to_le_bytes()) {
            let c = at + p;
            zip[c + 24..c + 28].copy_from_slice(&0x6000_0000u32.to_le_bytes());
            at = c + 4;
        }
        let e = parse_npz("many.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("many.npz: archive: the members claim") && e.contains("in all"), "{e}");
    }

    #[test]
    fn two_members_of_one_name_are_refused() {
        // numpy would read the last, a reader by name the first: neither is what the file means.
        let (s, l) = sample();
        let zip = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &l, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &s, deflate: true, zip64_central: false },
        ]);
        let e = parse_npz("dup.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("dup.npz: archive: the archive holds two members named 'labels'"), "{e}");
        let e = crate::io::read_scores("dup.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("two members named 'labels'"), "{e}");
        let e = crate::io::read_labels("dup.npz", &zip, 2, 2).unwrap_err().to_string();
        assert!(e.contains("two members named 'labels'"), "{e}");
    }

    #[test]
    fn split_archive_records_are_refused() {
        let (s, l) = sample();
        let good = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &l, deflate: false, zip64_central: false },
        ]);
        assert_eq!(parse_npz("ok.npz", &good).unwrap().len(), 2);
        let eocd = good.len() - 22;
        // A disk number, the directory's disk, and entries on this disk that are not all of them
        // (the total would drop the labels without a word).
        for (at, v) in [(4, 1u16), (6, 1), (10, 1)] {
            let mut zip = good.clone();
            zip[eocd + at..eocd + at + 2].copy_from_slice(&v.to_le_bytes());
            let e = parse_npz("split.npz", &zip).unwrap_err().to_string();
            assert!(e.contains("split.npz: byte") && e.contains("multi-disk"), "{e}");
        }
    }

    #[test]
    fn crc32_known_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn stored_and_deflated_members() {
        let (s, l) = sample();
        for zip64_central in [false, true] {
            let zip = build_zip(&[
                Member { name: "scores.npy", data: &s, deflate: false, zip64_central },
                Member { name: "labels.npy", data: &l, deflate: true, zip64_central },
            ]);
            let got = parse_npz("a.npz", &zip).unwrap();
            assert_eq!(got.len(), 2);
            assert_eq!(got[0].0, "scores");
            assert_eq!(got[0].1.shape, vec![2, 3, 2]);
            assert_eq!(got[1].0, "labels");
            assert_eq!(got[1].1.data, NpyData::Int(vec![1, 0]));
        }
    }

    #[test]
    fn refuses_corrupt_archives_without_panicking() {
        let (s, l) = sample();
        let zip = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: true, zip64_central: false },
            Member { name: "labels.npy", data: &l, deflate: false, zip64_central: false },
        ]);
        for cut in 0..zip.len() {
            assert!(parse_npz("c.npz", &zip[..cut]).is_err());
        }
        let e = parse_npz("c.npz", &zip[..zip.len() - 1]).unwrap_err().to_string();
        assert!(e.contains("c.npz") && e.contains("end-of-central-directory"), "{e}");
        // Flip one byte in the stored member's data: the CRC catches it.
        let mut bad = zip.clone();
        let at = bad.windows(6).rposition(|w| w == b"\x93NUMPY").unwrap() + 100;
        bad[at] ^= 0x55;
        let e = parse_npz("c.npz", &bad).unwrap_err().to_string();
        assert!(e.contains("CRC") && e.contains("member 'labels.npy'"), "{e}");
        // Every single-byte corruption is an error or a parse, never a panic.
        for i in 0..zip.len() {
            let mut z = zip.clone();
            z[i] ^= 0xA5;
            let _ = parse_npz("c.npz", &z);
        }
    }

    #[test]
    fn refuses_unsupported_method_and_huge_claims() {
        let (s, _) = sample();
        let mut zip =
            build_zip(&[Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false }]);
        let cd = zip.windows(4).position(|w| w == SIG_CENTRAL.to_le_bytes()).unwrap();
        let mut m = zip.clone();
        m[cd + 10] = 12; // bzip2
        let e = parse_npz("m.npz", &m).unwrap_err().to_string();
        assert!(e.contains("method 12") && e.contains("expected stored (0) or deflated (8)"), "{e}");
        zip[cd + 24..cd + 28].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = parse_npz("h.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("h.npz: member 'scores.npy', byte 0") && e.contains("limit"), "{e}");
    }
}
