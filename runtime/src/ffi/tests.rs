use super::*;

#[test]
fn an_entry_reports_failures_and_stops_panics() {
    assert_eq!(entry("ok", || Ok(())), Status::Ok.code());
    let code = entry("f", || Err(Failure::new(Status::Domain, "f: outside")));
    assert_eq!(code, Status::Domain.code());
    assert_eq!(last_error(), "f: outside");
    let code = entry("g", || panic!("an invariant broke"));
    assert_eq!(code, Status::Panic.code());
    let message = last_error();
    assert!(
        message.contains("g: internal error") && message.contains("an invariant broke"),
        "{message}"
    );
    // The message stays until the next failure.
    assert_eq!(entry("ok", || Ok(())), 0);
    assert!(last_error().contains("an invariant broke"));
}

#[test]
fn errors_map_to_their_statuses() {
    let cases = [
        (Error::Shape("s".into()), Status::Shape),
        (Error::Config("c".into()), Status::Config),
        (Error::Io("i".into()), Status::Io),
        (
            Error::Execution {
                program: "p".into(),
                message: "m".into(),
            },
            Status::Execution,
        ),
    ];
    for (error, status) in cases {
        assert_eq!(Failure::from(error).status, status);
    }
    let codes: Vec<i32> = Status::ALL.iter().map(|s| s.code()).collect();
    assert_eq!(codes, (0..Status::ALL.len() as i32).collect::<Vec<_>>());
}

#[test]
fn negative_sizes_and_null_arrays_are_refused() {
    assert_eq!(sizes("f", "a", [3, 4]).expect("sizes"), [3, 4]);
    let failure = sizes("f", "a", [3, -1]).expect_err("negative");
    assert_eq!(failure.status, Status::Shape);
    assert!(
        failure
            .message
            .contains("`a` has size -1 along dimension 2"),
        "{}",
        failure.message
    );
    let data = [1.0f64];
    assert!(non_null("f", "a", data.as_ptr(), &[1]).is_ok());
    assert!(non_null("f", "a", std::ptr::null::<f64>(), &[0, 3]).is_ok());
    assert_eq!(
        non_null("f", "a", std::ptr::null::<f64>(), &[2, 3])
            .expect_err("null")
            .status,
        Status::NullPointer
    );
}

#[test]
fn logical_arrays_hold_zero_or_one() {
    // A (2, 3) section every other byte of a column-major buffer.
    let mut bytes = [1u8, 9, 0, 9, 1, 9, 0, 9, 1, 9, 1, 9];
    let (shape, strides) = ([2usize, 3], [2isize, 4]);
    assert!(check_bools("f", "m", bytes.as_ptr() as *const bool, &shape, &strides).is_ok());
    bytes[6] = 2;
    let failure =
        check_bools("f", "m", bytes.as_ptr() as *const bool, &shape, &strides).expect_err("byte 2");
    assert_eq!(failure.status, Status::Argument);
    assert!(
        failure.message.contains("byte 2 at index [1, 1]"),
        "{}",
        failure.message
    );
    assert!(check_bools("f", "m", std::ptr::null(), &[0, 3], &strides).is_ok());
}

#[test]
fn only_a_written_array_may_not_share_memory() {
    let extent = |name, lo, hi, written| Extent {
        name,
        range: Some((lo, hi)),
        written,
    };
    let reads = [extent("a", 0, 99, false), extent("b", 50, 149, false)];
    assert!(check_disjoint("f", &reads).is_ok());
    let apart = [extent("a", 0, 99, false), extent("out", 100, 199, true)];
    assert!(check_disjoint("f", &apart).is_ok());
    let shared = [extent("a", 0, 99, false), extent("out", 99, 199, true)];
    let failure = check_disjoint("f", &shared).expect_err("shared");
    assert!(
        failure
            .message
            .contains("`a` and `out` share memory, and `out` is written"),
        "{}",
        failure.message
    );
    let both = [extent("x", 0, 9, true), extent("y", 5, 15, true)];
    assert!(check_disjoint("f", &both).is_err());
    let absent = [
        Extent {
            name: "m",
            range: None,
            written: true,
        },
        extent("a", 0, 9, false),
    ];
    assert!(check_disjoint("f", &absent).is_ok());
}

#[test]
fn handles_are_made_checked_and_freed_once() {
    let mut made: *mut u64 = std::ptr::null_mut();
    // SAFETY: `made` is a valid place for one pointer; the handle is ours.
    unsafe {
        assert_eq!(
            handle_mut("f", "thing", made).expect_err("null").status,
            Status::NotInitialised
        );
        assert_eq!(
            give_handle("f", std::ptr::null_mut::<*mut u64>(), 5u64)
                .expect_err("no place")
                .status,
            Status::NullPointer
        );
        give_handle("f", &mut made, 41u64).expect("made");
        *handle_mut("f", "thing", made).expect("live") += 1;
        assert_eq!(*handle::<u64>("f", "thing", made).expect("live"), 42);
        free_handle(&mut made);
        assert!(made.is_null());
        free_handle(&mut made);
        free_handle(std::ptr::null_mut::<*mut u64>());
    }
}
