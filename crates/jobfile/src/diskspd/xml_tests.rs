//! Tests of XML profiles (`-X`): several time spans and targets, template paths, overrides,
//! errors naming the element and line, and the profile written back reading the same.

use super::*;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

/// Parses `line` with `-X` reading `text` whatever the file's name.
fn with_profile(line: &str, text: &'static str) -> Result<DiskSpdProfile, DiskSpdError> {
    thread_local!(static TEXT: std::cell::Cell<&'static str> = const { std::cell::Cell::new("") });
    TEXT.with(|t| t.set(text));
    let env = Env {
        read_file: |_| Ok(TEXT.with(|t| t.get()).to_string()),
        ..Env::pure()
    };
    parse_with(&args(line), &env)
}

const TWO_SPANS: &str = r#"<Profile>
  <TimeSpans>
    <TimeSpan>
      <Duration>3</Duration>
      <Warmup>0</Warmup>
      <ThreadCount>2</ThreadCount>
      <Targets>
        <Target><Path>*1</Path><BlockSize>4096</BlockSize><Random>4096</Random><RequestCount>4</RequestCount></Target>
        <Target><Path>*2</Path><BlockSize>4096</BlockSize><Random>4096</Random><RequestCount>4</RequestCount></Target>
      </Targets>
    </TimeSpan>
    <TimeSpan>
      <Duration>2</Duration>
      <Targets>
        <Target>
          <Path>*1</Path>
          <BlockSize>8192</BlockSize>
          <WriteRatio>30</WriteRatio>
          <Random>8192</Random>
          <Distribution><Percent><Range IO="95">5</Range><Range IO="4">10</Range></Percent></Distribution>
          <Throughput unit="IOPS">100</Throughput>
          <ThreadsPerFile>3</ThreadsPerFile>
        </Target>
      </Targets>
    </TimeSpan>
  </TimeSpans>
</Profile>"#;

#[test]
fn a_profile_of_two_time_spans_gives_their_jobs_in_order() {
    let p = with_profile("-Xp.xml a.dat b.dat", TWO_SPANS).unwrap();
    assert_eq!(p.time_spans.len(), 2);
    let first = &p.time_spans[0];
    assert_eq!(first.jobs.len(), 1, "-F over targets that share parameters");
    assert_eq!(first.targets.len(), 2);
    assert_eq!(first.jobs[0].filenames.len(), 2);
    assert_eq!((first.jobs[0].numjobs, first.jobs[0].iodepth), (2, 8));
    let second = &p.time_spans[1];
    let j = &second.jobs[0];
    assert_eq!(
        (j.numjobs, j.rwmixread, j.rate_iops.read),
        (3, 70, Some(100))
    );
    assert_eq!(j.name, "diskspd-1");
    assert_eq!(
        second.targets[0].distribution.as_ref().unwrap().ranges,
        vec![(95, 5), (4, 10), (1, 85)]
    );
    assert_eq!(p.jobs().len(), 2);
}

#[test]
fn command_line_overrides_and_switches_refused_with_x() {
    let p = with_profile("-d1 -W0 -z7 -Xp.xml a b", TWO_SPANS).unwrap();
    assert!(p
        .time_spans
        .iter()
        .all(|s| s.duration_s == 1 && s.warmup_s == 0 && s.random_seed == Some(7)));
    let e = with_profile("-b8K -Xp.xml a b", TWO_SPANS).unwrap_err();
    assert_eq!(e.switch, "-b8K");
    assert!(e.to_string().contains("only -d, -W"), "{e}");
    let e = with_profile("-Xp.xml a", TWO_SPANS).unwrap_err();
    assert!(e.to_string().contains("template *2"), "{e}");
}

#[test]
fn a_missing_or_empty_required_element_names_the_element_and_its_line() {
    for (text, needle) in [
        (
            "<Profile>\n<TimeSpans>\n<TimeSpan>\n<Duration>1</Duration>\n</TimeSpan>\n</TimeSpans>\n</Profile>",
            "<TimeSpan> at line 3: has no <Targets>",
        ),
        (
            "<Profile>\n<TimeSpans><TimeSpan><Targets>\n<Target><Path></Path></Target>\n</Targets></TimeSpan></TimeSpans></Profile>",
            "<Path> at line 3: is empty",
        ),
        (
            "<Profile><TimeSpans><TimeSpan><Targets><Target>\n<BlockSize>4096</BlockSize></Target></Targets></TimeSpan></TimeSpans></Profile>",
            "has no <Path>",
        ),
        (
            "<Profile><TimeSpans><TimeSpan><Duration></Duration><Targets><Target><Path>t</Path></Target></Targets></TimeSpan></TimeSpans></Profile>",
            "<Duration> at line 1: is empty",
        ),
        (
            "<Profile><TimeSpans><TimeSpan><Targets><Target><Path>t</Path>\n<Bogus>1</Bogus></Target></Targets></TimeSpan></TimeSpans></Profile>",
            "<Bogus> at line 2: is not an element",
        ),
        (
            "<Profile><TimeSpans><TimeSpan><Targets><Target><Path>t</Path><BlockSize>4k</BlockSize></Target></Targets></TimeSpan></TimeSpans></Profile>",
            "'4k' is not a whole number",
        ),
        ("<Profile>", "not XML"),
    ] {
        let e = with_profile("-Xp.xml", text).unwrap_err();
        assert!(e.to_string().contains(needle), "{needle}: {e}");
        assert_eq!(e.switch, "-Xp.xml");
    }
    // An empty Duration is fine when -d gives it (VM Fleet's templates).
    let text = "<Profile><TimeSpans><TimeSpan><Duration></Duration><Targets><Target><Path>t</Path></Target></Targets></TimeSpan></TimeSpans></Profile>";
    assert_eq!(
        with_profile("-d3 -Xp.xml", text).unwrap().time_spans[0].duration_s,
        3
    );
}

#[test]
fn the_profile_written_back_reads_as_the_same_workload() {
    for line in [
        "-c64M -b8K -F4 -r -o32 -W1 -d2 -Sh -L -w30 a.dat",
        "-t2 -o8 -rs60 -b4K -B1M:8M -g100i -z5 -a0,1 a.dat b.dat",
        "-b64K -si -t2 -T0 -Z1M -i4 -j10 -I2 -fs a.dat",
        "-r -b4K -rdabs90/1G:10/1G -O16 -F2 -D500 a.dat b.dat",
        "-b8K -s16K -w100 -Sw -C1 a.dat",
    ] {
        let p = parse(&args(line)).unwrap();
        let text: &'static str = Box::leak(profile_xml(&p, 0).into_boxed_str());
        let back = with_profile("-Xp.xml", text).unwrap_or_else(|e| panic!("{line}: {e}\n{text}"));
        assert_eq!(back.time_spans.len(), 1);
        assert_eq!(
            back.time_spans[0].targets, p.time_spans[0].targets,
            "{line}"
        );
        assert_eq!(back.jobs(), p.jobs(), "{line}\n{text}");
    }
}
