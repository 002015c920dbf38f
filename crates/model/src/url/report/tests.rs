use super::*;
// The page decodes its blocks in wasm: the same tests run there.
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn s(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn settings_become_the_links_parameters_and_read_back() {
    let q = query(&s(&[
        ("alpha", "0.2"),
        ("rvalue", "parametric"),
        ("splits", "3"),
        ("cal_fraction", "0.4"),
        ("item", "7"),
        ("panel", "coverage"),
        ("name", "<b>\"x\"</b> & y"),
    ]))
    .unwrap();
    let (r, name) = read(&q);
    assert_eq!(r.warnings, Vec::<String>::new());
    let st = r.state;
    assert_eq!((st.controls.alpha, st.controls.splits, st.controls.cal_fraction), (0.2, 3, 0.4));
    assert_eq!(st.controls.score.kind.to_string(), "parametric");
    assert_eq!((st.item, st.embed.map(|p| p.name())), (7, Some("coverage")));
    assert_eq!((st.controls.mode, st.data), (Mode::Scores, DataRef::Report));
    assert_eq!(r.workers_switch.as_deref(), Some("0"));
    assert_eq!(name.as_deref(), Some("<b>\"x\"</b> & y"));
}

#[test]
fn unknown_names_are_named_and_bad_values_explained() {
    assert_eq!(
        query(&s(&[("alpha", "0.1"), ("colour", "red"), ("mode", "toy"), ("k", "3")])),
        Err(Refused::Unknown(vec!["colour".into(), "mode".into(), "k".into()]))
    );
    for (pair, why) in [
        (("alpha", "2"), "'alpha=2'"),
        (("rvalue", "best"), "'kind=best'"),
        (("panel", "nope"), "'embed=nope'"),
        (("name", "a\u{202E}b"), "bidirectional control character (U+202E)"),
        (("name", &"x".repeat(10_000)), "longer than 200 characters"),
    ] {
        match query(&s(&[pair])) {
            Err(Refused::Bad(e)) => assert!(e.contains(why), "{pair:?}: {e}"),
            other => panic!("{pair:?}: {other:?}"),
        }
    }
    assert!(matches!(query(&s(&[("rvalue", "pooled"), ("kind", "pooled")])), Err(Refused::Bad(_))));
}

#[test]
fn a_reports_query_cannot_name_other_data_or_workers() {
    let (r, _) = read("sample=digits_wbb.npz&workers=4&mode=toy&tour=2");
    assert_eq!((r.state.data, r.state.controls.mode), (DataRef::Report, Mode::Scores));
    assert_eq!(r.workers_switch.as_deref(), Some("0"));
}

#[test]
fn base64_reads_back_every_byte_and_refuses_what_is_not() {
    let bytes: Vec<u8> = (0..=255u8).chain([0, 1, 2]).collect();
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for len in 0..bytes.len() {
        let mut text = String::new();
        for c in bytes[..len].chunks(3) {
            let n = c.iter().enumerate().fold(0u32, |a, (i, &b)| a | (u32::from(b) << (16 - 8 * i)));
            for j in 0..=c.len() {
                text.push(A[(n >> (18 - 6 * j) & 63) as usize] as char);
            }
            text.push_str(&"=".repeat(3 - c.len()));
        }
        assert_eq!(decode_base64(&text).unwrap(), &bytes[..len], "{len}");
        assert_eq!(decode_base64(&format!(" {}\n", text.trim_end_matches('='))).unwrap(), &bytes[..len]);
    }
    assert_eq!(decode_base64("TWFu").unwrap(), b"Man");
    assert!(decode_base64("TW<u").unwrap_err().contains("byte 2"));
    assert!(decode_base64("TQ==TQ==").unwrap_err().contains("padding"));
    assert!(decode_base64("TWFuT").unwrap_err().contains("middle"));
}

#[test]
fn a_report_s_address_wins_over_its_block_but_keeps_its_name() {
    let block = "alpha=0.2&name=Mine";
    let (r, name) = in_force(block, "");
    assert_eq!((r.state.controls.alpha, name.as_deref()), (0.2, Some("Mine")));
    let (r, name) = in_force(block, "alpha=0.3");
    assert_eq!((r.state.controls.alpha, name.as_deref()), (0.3, Some("Mine")));
    let (_, name) = in_force(block, "alpha=0.3&name=Other");
    assert_eq!(name.as_deref(), Some("Other"));
    let (r, name) = in_force("", "");
    assert_eq!((r.state.data, name), (DataRef::Report, None));
}
