//! Tests of the io_uring engine's ring setup.

use super::*;

/// Documents which flag set this kernel accepted (6.1+ takes the full set).
#[test]
fn ring_gets_the_best_flags_the_kernel_accepts() {
    match build_ring(8) {
        Ok((ring, disabled)) => {
            let single = ring.params().is_setup_single_issuer();
            eprintln!("single_issuer+defer_taskrun: {single}, starts disabled: {disabled}");
            assert_eq!(single, disabled);
        }
        Err(e) => crate::sys::skip_test(&format!("io_uring refused: {e}")),
    }
}

#[test]
fn refusals_map_to_unavailable() {
    for errno in [libc::ENOSYS, libc::EPERM, libc::EACCES] {
        let err = setup_error(io::Error::from_raw_os_error(errno));
        assert!(
            matches!(err, EngineError::IoUringUnavailable(_)),
            "{errno}: {err}"
        );
        assert!(err.to_string().contains("--ioengine=psync"));
    }
    for errno in [libc::ENOMEM, libc::EINVAL, libc::EFAULT] {
        let err = setup_error(io::Error::from_raw_os_error(errno));
        assert!(
            matches!(
                err,
                EngineError::Syscall {
                    call: "io_uring_setup",
                    ..
                }
            ),
            "{errno}: {err}"
        );
    }
}
