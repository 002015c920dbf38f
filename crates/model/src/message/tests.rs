use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn errors_on_the_page_are_sentences_without_their_kind() {
    let e = Error::invalid("panel 2 has no figure yet");
    assert_eq!(e.to_string(), "invalid argument: panel 2 has no figure yet");
    assert_eq!(sentence(&e), "Panel 2 has no figure yet.");
    assert_eq!(sentence(&Error::out_of_range("β", 1.5, "(0, 1)")), "β = 1.5 is not in (0, 1).");
    let e = Error::InvalidOption { option: "prior".into(), value: "x".into(), expected: "a or b".into() };
    assert_eq!(sentence(&e), "'x' is not a prior (expected a or b).");
    assert_eq!(sentence(&Error::shape("3 items.")), "3 items.");
    assert_eq!(sentence(&Error::parse("f.npy", "byte 3", "bad")), "f.npy: byte 3: bad.");
    let e = Error::invalid("x.npy has no labels: conformal prediction needs them");
    let shown = failure(&e, "The results shown are unchanged.");
    assert_eq!(
        shown,
        "x.npy has no labels: conformal prediction needs them. The results shown are unchanged."
    );
    assert_eq!(about("d.npz", &Error::invalid("bad")), "d.npz: bad.");
    assert_eq!(reason(&Error::gpu("compiling the kernels failed")), "compiling the kernels failed");
    assert_eq!(reason(&Error::invalid("stale answer")), "stale answer");
    // A name opening the message keeps its case.
    assert_eq!(
        sentence(&Error::invalid("no_labels.npy: two labels files")),
        "no_labels.npy: two labels files."
    );
    assert_eq!(sentence(&Error::invalid("x.csv has no labels")), "x.csv has no labels.");
    assert_eq!(capitalised("can't read"), "Can't read.");
    for e in [Error::invalid("a"), Error::out_of_range("α", 2.0, "(0, 1)"), Error::length("labels", 3, "4")]
    {
        assert!(!sentence(&e).contains("invalid argument") && !sentence(&e).contains("shape mismatch"));
    }
}
