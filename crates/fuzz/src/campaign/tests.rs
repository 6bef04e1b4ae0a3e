//! The campaign runner on a target made to fail: a panic, a stuck input, a busy one and a
//! broken promise are each counted and kept with their input.

use super::*;

/// A target that panics on input 3, hangs on input 5 (for good: the campaign leaves the
/// thread behind), takes too much CPU on 6 and breaks a promise on 7.
struct Faulty;

impl Target for Faulty {
    fn name(&self) -> &'static str {
        "faulty"
    }
    fn extension(&self) -> &'static str {
        "txt"
    }
    fn generate(&self, g: &mut Gen) -> Vec<u8> {
        g.below(10).to_string().into_bytes()
    }
    fn check(&self, input: &[u8]) -> Verdict {
        match input {
            b"3" => panic!("three"),
            b"5" => loop {
                std::thread::sleep(Duration::from_secs(1));
            },
            b"6" => {
                // Busy past the CPU limit, then done: a hang all the same.
                let start = thread_cpu_ns();
                while thread_cpu_ns() - start < 80_000_000 {
                    std::hint::black_box(0);
                }
                Verdict::Accepted
            }
            b"7" => Verdict::Broken("seven".into()),
            b"1" => Verdict::Refused("one 1".into()),
            b"2" => Verdict::Refused("one 22".into()),
            _ => Verdict::Accepted,
        }
    }
}

#[test]
fn panics_hangs_and_broken_promises_are_counted_with_their_inputs() {
    let settings = Settings {
        inputs: 80,
        seed: 1,
        threads: 2,
        hang_after: Duration::from_millis(50),
        save_to: None,
    };
    let report = run(Arc::new(Faulty), &settings);
    assert_eq!(report.inputs, 80);
    assert!(report.panics > 0 && report.hangs > 0 && report.broken > 0);
    assert_eq!(report.distinct_errors, 1, "numbers are blanked");
    let panic = report
        .failures
        .iter()
        .find(|f| f.kind == FailureKind::Panic)
        .unwrap();
    assert_eq!(panic.input, b"3");
    assert!(panic.message.starts_with("three at "), "{}", panic.message);
    let hung: Vec<&[u8]> = report
        .failures
        .iter()
        .filter(|f| f.kind == FailureKind::Hang)
        .map(|f| f.input.as_slice())
        .collect();
    assert!(hung.contains(&&b"5"[..]), "stuck: {hung:?}");
    assert!(hung.contains(&&b"6"[..]), "busy: {hung:?}");
}
