use super::*;

#[test]
fn paths_and_http_addresses_pass_and_other_schemes_do_not() {
    for ok in
        ["data/clip.npz", "../x.npy", "/scores.csv", "https://example.org/a.npz", "a?b=c:d", "HTTP://h/x"]
    {
        assert_eq!(address(ok).as_deref(), Ok(ok), "{ok}");
    }
    for (bad, why) in [
        ("", "empty"),
        ("javascript:alert(1)", "'javascript:'"),
        ("data:text/plain,x", "'data:'"),
        ("file:///etc/passwd", "'file:'"),
        ("a\u{7}b", "control"),
        ("x\u{202E}\n", "control"),
        ("abc\u{202E}gpj.npz", "bidirectional control character (U+202E)"),
    ] {
        let e = address(bad).unwrap_err();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
    assert!(address(&"a".repeat(MAX_SRC_CHARS)).is_ok());
    assert!(address(&"a".repeat(MAX_SRC_CHARS + 1)).unwrap_err().contains("longer"));
}

#[test]
fn display_names_are_plain_text_of_bounded_length() {
    for ok in ["CLIP ViT-B/32 on ImageNet", "<img src=x onerror=alert(1)>", "数据 ☃", " padded "] {
        assert_eq!(display_name(ok).as_deref(), Ok(ok.trim()), "{ok}");
    }
    let max = rvalue_core::io::MAX_NAME_CHARS;
    assert!(display_name(&"é".repeat(max)).is_ok());
    for (bad, why) in [
        ("", "empty"),
        ("   ", "empty"),
        ("a\tb", "control"),
        ("line\nbreak", "control"),
        ("abc\u{202E}gpj.npz", "bidirectional control character (U+202E)"),
        ("\u{2066}x\u{2069}", "bidirectional control character (U+2066)"),
    ] {
        let e = display_name(bad).unwrap_err();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
    assert!(display_name(&"x".repeat(max + 1)).unwrap_err().contains("longer than 200"));
}

#[test]
fn range_headers_and_content_ranges_read_as_http_writes_them() {
    assert_eq!(range_header(&(0..1024)), "bytes=0-1023");
    assert_eq!(range_header(&(5..6)), "bytes=5-5");
    assert_eq!(content_range_total("bytes 0-1023/1080128"), Some(1_080_128));
    assert_eq!(content_range_total(" bytes 0-0/7 "), Some(7));
    for bad in ["bytes 0-1023/*", "0-1023/100", "bytes 0-1023", "items 0-1/2", ""] {
        assert_eq!(content_range_total(bad), None, "{bad:?}");
    }
}

#[test]
fn large_files_of_a_server_with_ranges_stream_and_the_rest_are_read_whole() {
    let (asked, from) = (100, 1000.0);
    let of = |status, range| HostedRead::of(status, range, asked, from);
    assert_eq!(of(206, Some("bytes 0-99/1000")), HostedRead::Stream { size: 1000 });
    assert_eq!(of(206, Some("bytes 0-99/999")), HostedRead::Refetch);
    assert_eq!(of(206, Some("bytes 0-99/100")), HostedRead::AsIs);
    assert_eq!(of(206, Some("bytes 0-6/7")), HostedRead::AsIs);
    assert_eq!(of(206, Some("bytes 0-99/*")), HostedRead::Refetch);
    assert_eq!(of(206, None), HostedRead::Refetch);
    assert_eq!(of(200, Some("bytes 0-99/5000")), HostedRead::AsIs);
    assert_eq!(of(200, None), HostedRead::AsIs);
    // `stream=0` streams every file a server ranges, however small.
    assert_eq!(HostedRead::of(206, Some("bytes 0-6/7"), asked, 0.0), HostedRead::Stream { size: 7 });
    assert!(unranged_note(1000.0, from).is_some_and(|n| n.contains("Range requests")));
    assert_eq!(unranged_note(999.0, from), None);
}

#[test]
fn a_file_is_named_by_its_path_s_last_part() {
    assert_eq!(file_name("data/clip.npz?v=2#x"), "clip.npz");
    assert_eq!(file_name("https://h/a/b.npy"), "b.npy");
    assert_eq!(file_name("dir/"), "dir/");
    assert_eq!(file_name("x.csv"), "x.csv");
}

#[test]
fn another_site_an_error_or_a_web_page_is_refused() {
    assert_eq!(other_site("a.npy", "http://h", "http://h"), None);
    let why = other_site("https://o/a.npy", "https://o", "http://h").unwrap();
    assert!(
        why.starts_with("'https://o/a.npy' is on another site (https://o)")
            && why.contains("(http://h) only")
    );
    assert_eq!(refused_answer("a", true, 200, Some("application/octet-stream")), None);
    assert_eq!(refused_answer("a", true, 200, None), None);
    assert_eq!(refused_answer("a", false, 404, None).unwrap(), "'a' could not be fetched: HTTP 404");
    assert!(refused_answer("a", true, 200, Some("text/html; charset=utf-8"))
        .unwrap()
        .contains("is a web page"));
}

#[test]
fn a_range_read_needs_a_206_and_every_byte_asked_for() {
    assert_eq!(unranged(206), None);
    assert_eq!(unranged(200).unwrap(), "the server answered a Range request with HTTP 200");
    assert_eq!(short_read(&(10..20), 10), None);
    assert_eq!(short_read(&(10..20), 4).unwrap(), "4 bytes came where 10 were asked for");
    assert_eq!(fetching("a.npy", 2.5e6), "Fetching a.npy (2.5 MB)…");
}
