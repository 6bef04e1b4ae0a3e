//! DiskSpd XML profiles (`-X profile.xml`): DiskSpd's schema (`diskspd.xsd`) — Profile,
//! TimeSpans, TimeSpan, Targets, Target and their children — read into time spans. An element
//! DiskSpd requires that is missing or empty, a value of the wrong type, or an element the
//! schema does not have, is an error naming the element and its line. Template paths `*1`,
//! `*2` ... take the targets given after `-X` on the command line, in order.

use super::error::{DiskSpdError, DiskSpdProblem};
use super::model::{
    Access, Distribution, OutputForm, TargetParams, Throughput, TimeSpan, WriteBuffers,
};
use super::switches::complete;
use roxmltree::{Document, Node};

/// What a profile gives: its time spans, result format and notes.
pub(crate) struct XmlProfile {
    /// The time spans, targets filled (jobs not yet).
    pub time_spans: Vec<TimeSpan>,
    /// `<ResultFormat>`, if given.
    pub output: Option<OutputForm>,
    /// Notes for elements accepted that change nothing here.
    pub notes: Vec<String>,
}

/// A reader of one document: the `-X` argument (for errors) and the notes gathered.
struct Reader<'a> {
    arg: &'a str,
    doc: &'a Document<'a>,
    notes: Vec<String>,
    paths: &'a [String],
    templates_used: usize,
    /// Time-span elements the command line overrides (`Duration` for `-d` ...): empty is fine.
    overridden: &'a [&'static str],
}

impl Reader<'_> {
    /// An error about `node` (named with its line).
    fn error(&self, node: Node, why: impl Into<String>) -> DiskSpdError {
        let line = self.doc.text_pos_at(node.range().start).row;
        DiskSpdError {
            switch: self.arg.to_string(),
            problem: DiskSpdProblem::Xml {
                element: node.tag_name().name().to_string(),
                line,
                why: why.into(),
            },
        }
    }

    /// The element's text, trimmed; an empty element is an error (DiskSpd needs a value).
    fn text<'n>(&self, node: Node<'n, '_>) -> Result<&'n str, DiskSpdError> {
        match node.text().map(str::trim).filter(|t| !t.is_empty()) {
            Some(text) => Ok(text),
            None => Err(self.error(node, "is empty; DiskSpd needs a value here")),
        }
    }

    fn number(&self, node: Node) -> Result<u64, DiskSpdError> {
        let text = self.text(node)?;
        text.parse::<u64>()
            .map_err(|_| self.error(node, format!("'{text}' is not a whole number")))
    }

    fn count(&self, node: Node) -> Result<u32, DiskSpdError> {
        let n = self.number(node)?;
        u32::try_from(n).map_err(|_| self.error(node, format!("{n} is more than {}", u32::MAX)))
    }

    fn percent(&self, node: Node) -> Result<u8, DiskSpdError> {
        let n = self.number(node)?;
        u8::try_from(n)
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(|| self.error(node, format!("{n} is not a percentage 0-100")))
    }

    fn flag(&self, node: Node) -> Result<bool, DiskSpdError> {
        match self.text(node)? {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(self.error(node, format!("'{other}' is not true or false"))),
        }
    }

    fn note(&mut self, node: Node, text: &str) {
        let name = node.tag_name().name();
        let line = format!("<{name}>: {text}");
        if !self.notes.contains(&line) {
            self.notes.push(line);
        }
    }

    fn unknown(&self, node: Node) -> DiskSpdError {
        self.error(node, "is not an element of DiskSpd's profile schema here")
    }

    /// The one child `name` of `node`, or an error naming it as missing.
    fn required<'n>(&self, node: Node<'n, 'n>, name: &str) -> Result<Node<'n, 'n>, DiskSpdError> {
        node.children()
            .find(|c| c.has_tag_name(name))
            .ok_or_else(|| self.error(node, format!("has no <{name}>, which DiskSpd requires")))
    }

    fn profile(&mut self, root: Node) -> Result<XmlProfile, DiskSpdError> {
        if !root.has_tag_name("Profile") {
            return Err(self.error(root, "the root element must be <Profile>"));
        }
        let mut output = None;
        let mut time_spans = Vec::new();
        for child in root.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "TimeSpans" => {
                    for span in child.children().filter(Node::is_element) {
                        if !span.has_tag_name("TimeSpan") {
                            return Err(self.unknown(span));
                        }
                        time_spans.push(self.time_span(span)?);
                    }
                    if time_spans.is_empty() {
                        return Err(self.error(child, "has no <TimeSpan>, which DiskSpd requires"));
                    }
                }
                "ResultFormat" => {
                    output = Some(match self.text(child)? {
                        "text" => OutputForm::Text,
                        "xml" => OutputForm::Xml,
                        other => {
                            return Err(self.error(child, format!("'{other}' is not text or xml")))
                        }
                    })
                }
                "Verbose" | "VerboseStats" => {
                    self.flag(child)?;
                }
                // diskmeter's -Rxml report writes the command line it ran into its profile.
                "CommandLine" => {}
                "Progress" | "ExperimentFlags" => {
                    self.number(child)?;
                }
                "ETW" => self.note(
                    child,
                    "ETW tracing is Windows-only; nothing it changes is measured here",
                ),
                "PrecreateFiles" => self.note(
                    child,
                    "diskmeter lays out every target before the first time span",
                ),
                _ => return Err(self.unknown(child)),
            }
        }
        if time_spans.is_empty() {
            return Err(self
                .required(root, "TimeSpans")
                .err()
                .unwrap_or_else(|| self.error(root, "has no <TimeSpan>, which DiskSpd requires")));
        }
        if !self.paths.is_empty() && self.templates_used == 0 {
            return Err(DiskSpdError {
                switch: self.paths[0].clone(),
                problem: DiskSpdProblem::NoTemplates,
            });
        }
        Ok(XmlProfile {
            time_spans,
            output,
            notes: std::mem::take(&mut self.notes),
        })
    }

    fn time_span(&mut self, node: Node) -> Result<TimeSpan, DiskSpdError> {
        let mut span = TimeSpan::default();
        let mut random_write_data = false;
        let targets = self.required(node, "Targets")?;
        for child in node.children().filter(Node::is_element) {
            let name = child.tag_name().name();
            // VM Fleet's templates leave these empty for -d, -W, -C to fill.
            if self.overridden.contains(&name) {
                continue;
            }
            match name {
                "Targets" => {}
                "Duration" => span.duration_s = self.number(child)?.max(1),
                "Warmup" => span.warmup_s = self.number(child)?,
                "Cooldown" => span.cooldown_s = self.number(child)?,
                "RandSeed" => span.random_seed = Some(self.number(child)?),
                "RandomWriteData" => random_write_data = self.flag(child)?,
                "ThreadCount" => span.thread_count = self.count_or_zero(child)?,
                "RequestCount" => {
                    let n = self.count_or_zero(child)?;
                    span.requests_per_thread = (n > 0).then_some(n);
                }
                "MeasureLatency" => span.measure_latency = self.flag(child)?,
                "CalculateIopsStdDev" => {
                    if self.flag(child)? && span.iops_interval_ms.is_none() {
                        span.iops_interval_ms = Some(1000);
                    }
                }
                "IoBucketDuration" => span.iops_interval_ms = Some(self.number(child)?.max(1)),
                "DisableAffinity" => span.affinity_disabled = self.flag(child)?,
                "GroupAffinity" => {
                    if self.flag(child)? {
                        self.note(
                            child,
                            "threads are spread over the CPUs by the kernel here (no processor groups)",
                        );
                    }
                }
                "CompletionRoutines" => {
                    if self.flag(child)? {
                        self.note(
                            child,
                            "completions are io_uring's here, whatever the Windows completion model",
                        );
                    }
                }
                "Affinity" => {
                    for a in child.children().filter(Node::is_element) {
                        match a.tag_name().name() {
                            "AffinityAssignment" => span.affinity_cpus.push(self.count_or_zero(a)?),
                            "AffinityGroupAssignment" => {
                                let attr = |name: &str| -> Result<u32, DiskSpdError> {
                                    a.attribute(name).unwrap_or("0").parse().map_err(|_| {
                                        self.error(a, format!("its {name} is not a whole number"))
                                    })
                                };
                                if attr("Group")? > 0 {
                                    return Err(
                                        self.error(a, DiskSpdProblem::ProcessorGroup.to_string())
                                    );
                                }
                                span.affinity_cpus.push(attr("Processor")?);
                            }
                            _ => return Err(self.unknown(a)),
                        }
                    }
                }
                _ => return Err(self.unknown(child)),
            }
        }
        for target in targets.children().filter(Node::is_element) {
            if !target.has_tag_name("Target") {
                return Err(self.unknown(target));
            }
            let mut params = self.target(target)?;
            if random_write_data && params.write_buffers == WriteBuffers::Default {
                params.write_buffers = WriteBuffers::PerIoRandom;
            }
            span.targets.push(params);
        }
        if span.targets.is_empty() {
            return Err(self.error(targets, "has no <Target>, which DiskSpd requires"));
        }
        Ok(span)
    }

    fn count_or_zero(&self, node: Node) -> Result<u32, DiskSpdError> {
        self.count(node)
    }

    fn target(&mut self, node: Node) -> Result<TargetParams, DiskSpdError> {
        let path_node = self.required(node, "Path")?;
        let path = self.path(path_node)?;
        let mut t = TargetParams::new(&path);
        let mut random_ratio = None;
        let mut random_align = None;
        for child in node.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "Path" => {}
                "BlockSize" => {
                    t.block_size_bytes = self.number(child)?;
                    if t.block_size_bytes == 0 {
                        return Err(self.error(child, DiskSpdProblem::ZeroBlockSize.to_string()));
                    }
                }
                "StrideSize" => t.sequential_stride_bytes = Some(self.number(child)?),
                "InterlockedSequential" => t.interlocked = self.flag(child)?,
                "BaseFileOffset" => t.base_offset_bytes = self.number(child)?,
                "SequentialScan" => t.sequential_scan_hint = self.flag(child)?,
                "RandomAccess" => t.random_access_hint = self.flag(child)?,
                "TemporaryFile" => t.temporary_file_hint = self.flag(child)?,
                "UseLargePages" => t.large_pages = self.flag(child)?,
                "RequestCount" => t.outstanding = self.count(child)?.max(1),
                "Random" => random_align = Some(self.number(child)?),
                "RandomRatio" => random_ratio = Some(self.percent(child)?),
                "DisableAllCache" => {
                    if self.flag(child)? {
                        t.software_cache_disabled = true;
                        t.write_through = true;
                    }
                }
                "DisableOSCache" => t.software_cache_disabled |= self.flag(child)?,
                "DisableLocalCache" => {
                    if self.flag(child)? {
                        self.note(
                            child,
                            "remote (SMB) caching is Windows'; local files here use the page cache",
                        );
                    }
                }
                "WriteThrough" => t.write_through |= self.flag(child)?,
                "MemoryMappedIo" => {
                    if self.flag(child)? {
                        return Err(self.error(child, DiskSpdProblem::MemoryMapped.to_string()));
                    }
                }
                "FlushType" => self.note(child, "applies to memory-mapped IO only; ignored"),
                "WriteBufferContent" => t.write_buffers = self.buffers(child)?,
                "BurstSize" => t.burst_size = Some(self.count(child)?).filter(|n| *n > 0),
                "ThinkTime" => t.think_time_ms = Some(self.count(child)?).filter(|n| *n > 0),
                "Throughput" => {
                    let n = self.number(child)?;
                    t.throughput = match (n, child.attribute("unit").unwrap_or("BPMS")) {
                        (0, _) => None,
                        (n, "IOPS") => Some(Throughput::Iops(n)),
                        (n, "BPMS") => Some(Throughput::BytesPerMs(n)),
                        (_, unit) => {
                            return Err(
                                self.error(child, format!("unit '{unit}' is not IOPS or BPMS"))
                            )
                        }
                    }
                }
                "ThreadsPerFile" => t.threads_per_file = self.count(child)?.max(1),
                "FileSize" => t.create_size_bytes = Some(self.number(child)?).filter(|n| *n > 0),
                "MaxFileSize" => t.max_size_bytes = Some(self.number(child)?).filter(|n| *n > 0),
                "WriteRatio" => t.write_percent = self.percent(child)?,
                "ParallelAsyncIO" => {
                    if self.flag(child)? {
                        return Err(
                            self.error(child, DiskSpdProblem::ParallelSameOffset.to_string())
                        );
                    }
                }
                "ThreadStride" => t.thread_stride_bytes = self.number(child)?,
                "IOPriority" => {
                    let n = self.number(child)?;
                    if !(1..=3).contains(&n) {
                        return Err(self.error(child, DiskSpdProblem::Priority.to_string()));
                    }
                    t.io_priority = n as u8;
                }
                "Weight" => {
                    self.number(child)?;
                }
                "ThreadTargets" => {
                    return Err(self.error(
                        child,
                        "assigning threads to targets by number has no counterpart here: \
                         every thread of a time span runs every target",
                    ))
                }
                "Distribution" => t.distribution = Some(self.distribution(child)?),
                _ => return Err(self.unknown(child)),
            }
        }
        if let Some(align) = random_align {
            if align == 0 {
                return Err(self.error(node, DiskSpdProblem::ZeroAlignment.to_string()));
            }
            t.random_align_bytes = (align != t.block_size_bytes).then_some(align);
            t.access = match random_ratio {
                Some(pct) if pct < 100 => Access::Mixed(pct),
                _ => Access::Random,
            };
            t.sequential_stride_bytes = None;
        }
        if t.sequential_stride_bytes == Some(t.block_size_bytes) {
            t.sequential_stride_bytes = None;
        }
        if t.sequential_stride_bytes == Some(0) {
            return Err(self.error(node, DiskSpdProblem::ZeroAlignment.to_string()));
        }
        Ok(t)
    }

    /// `<Path>`, a template `*N` replaced by the N-th target given on the command line.
    fn path(&mut self, node: Node) -> Result<String, DiskSpdError> {
        let text = self.text(node)?;
        let Some(index) = text.strip_prefix('*') else {
            return Ok(text.to_string());
        };
        let n: usize = index.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
            self.error(node, format!("'{text}' is not a template path *1, *2 ..."))
        })?;
        self.templates_used = self.templates_used.max(n);
        self.paths.get(n - 1).cloned().ok_or_else(|| {
            self.error(
                node,
                format!(
                    "template {text} needs a target on the command line after -X (the {n}. given)"
                ),
            )
        })
    }

    fn buffers(&self, node: Node) -> Result<WriteBuffers, DiskSpdError> {
        let pattern = self.required(node, "Pattern")?;
        match self.text(pattern)? {
            "sequential" => Ok(WriteBuffers::Default),
            "zero" => Ok(WriteBuffers::Zero),
            "random" => match node.children().find(|c| c.has_tag_name("RandomDataSource")) {
                None => Ok(WriteBuffers::PerIoRandom),
                Some(source) => {
                    if let Some(file) = source.children().find(|c| c.has_tag_name("FilePath")) {
                        return Err(self.error(file, DiskSpdProblem::BufferFromFile.to_string()));
                    }
                    let size = self.required(source, "SizeInBytes")?;
                    Ok(WriteBuffers::RandomSource {
                        size_bytes: self.number(size)?,
                    })
                }
            },
            other => Err(self.error(
                pattern,
                format!("'{other}' is not sequential, zero or random"),
            )),
        }
    }

    fn distribution(&self, node: Node) -> Result<Distribution, DiskSpdError> {
        let kind = node
            .children()
            .find(Node::is_element)
            .ok_or_else(|| self.error(node, "has no <Percent> or <Absolute>"))?;
        let absolute = match kind.tag_name().name() {
            "Percent" => false,
            "Absolute" => true,
            _ => return Err(self.unknown(kind)),
        };
        let mut ranges = Vec::new();
        for range in kind.children().filter(Node::is_element) {
            if !range.has_tag_name("Range") {
                return Err(self.unknown(range));
            }
            let io = range
                .attribute("IO")
                .and_then(|v| v.parse::<u8>().ok())
                .filter(|p| *p <= 100)
                .ok_or_else(|| self.error(range, "needs an IO attribute, a percentage 0-100"))?;
            ranges.push((io, self.number(range)?));
        }
        if ranges.is_empty() {
            return Err(self.error(kind, "has no <Range>, which DiskSpd requires"));
        }
        complete(Distribution { absolute, ranges }).map_err(|why| self.error(kind, why))
    }
}

/// Reads the profile `text` named by the argument `arg`; `paths` fill template paths.
pub(crate) fn read(
    text: &str,
    arg: &str,
    paths: &[String],
    overridden: &[&'static str],
) -> Result<XmlProfile, DiskSpdError> {
    let doc = Document::parse(text).map_err(|e| DiskSpdError {
        switch: arg.to_string(),
        problem: DiskSpdProblem::NotXml { why: e.to_string() },
    })?;
    let mut reader = Reader {
        arg,
        doc: &doc,
        notes: Vec::new(),
        paths,
        templates_used: 0,
        overridden,
    };
    reader.profile(doc.root_element())
}
