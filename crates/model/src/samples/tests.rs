use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn made_samples_are_the_toy_and_the_cifar_shape() {
    let (_, toy) = synthetic(SYNTHETIC_TOY).unwrap();
    let (scores, labels) = toy::simulate(&ToyParams::default(), 0).unwrap();
    let toy = toy.unwrap();
    assert_eq!(toy.scores.data(), scores.data());
    assert_eq!(toy.labels.as_deref(), Some(&labels[..]));
    let (_, cifar) = synthetic(SYNTHETIC_CIFAR).unwrap();
    let cifar = cifar.unwrap();
    assert_eq!((cifar.scores.n(), cifar.scores.m(), cifar.scores.k()), (2000, 31, 100));
    let made = SAMPLES.iter().filter(|s| synthetic(s).is_some()).count();
    assert_eq!(made, 2, "the bundled files are downloaded, not made");
}
