//! The examples every command's `-h` opens with: real command lines, each with what it does in
//! one line. A unit test of the CLI parses each one with the real command tree, so they keep
//! up with the options.

/// One example: what it does, then the command line (words split at spaces, no quoting).
pub type Example = (&'static str, &'static str);

/// The examples of each command, by its path (`diskmeter`, `diskmeter emulate create`).
#[rustfmt::skip]
pub(super) static EXAMPLES: &[(&str, &[Example])] = &[
    ("diskmeter", &[
        ("4 KiB random reads, QD 32, 1 GiB, 30 s (fio's options)", "diskmeter run --rw=randread --bs=4k --iodepth=32 --size=1g --runtime=30"),
        ("CrystalDiskMark's set on a folder", "diskmeter suite quick /mnt/data"),
        ("the last run as one HTML file", "diskmeter report last -o report.html"),
    ]),
    ("diskmeter run", &[
        ("the default job: 4 KiB random reads, QD 32, a 1 GiB file here, 10 s", "diskmeter run"),
        ("4 KiB random reads at QD 32 for 60 s on a 4 GiB file in /mnt/data", "diskmeter run --name=rr --rw=randread --bs=4k --iodepth=32 --size=4g --runtime=60 --filename=/mnt/data/t"),
        ("a 70/30 random read/write mix of 8 KiB IOs, the result as JSON", "diskmeter run --name=oltp --rw=randrw --rwmixread=70 --bs=8k --iodepth=16 --size=1g --output-format=json"),
        ("an fio job file, as fio runs it", "diskmeter run jobs/mixed.fio"),
        ("a cloud disk's 5,000 IOPS cap on this machine, no root", "diskmeter run --throttle-iops 5000 --name=capped --rw=randread --size=1g --runtime=30"),
    ]),
    ("diskmeter suite", &[
        ("every suite with its steps", "diskmeter suite --list"),
        ("CrystalDiskMark's default set on a folder", "diskmeter suite quick /mnt/data"),
        ("DigitalOcean's five, judged against its published figures", "diskmeter suite cloud /mnt/vol --expect do-standard"),
        ("4K/8K/64K/256K x seq/rand x read/write on a whole device (destroys it)", "diskmeter suite matrix /dev/sdb --allow-destroy"),
    ]),
    ("diskmeter sweep", &[
        ("IOPS and latency over a grid of queue depths and block sizes", "diskmeter sweep --qd 1,4,16,64 --bs 4k,64k /mnt/data"),
        ("the latency-throughput curve up to a p99 of 2 ms", "diskmeter sweep --curve --qd 32 --bs 4k --slo p99=2ms"),
        ("the grid under a 5,000 IOPS cap, its charts as PNG", "diskmeter sweep --throttle-iops 5000 --qd 1,4,16,64 --charts charts"),
    ]),
    ("diskmeter diskspd", &[
        ("DiskSpd's command line, unchanged (-h is DiskSpd's: no caching)", "diskmeter diskspd -c1G -w30 -b8K -t4 -r -o32 -W5 -d30 -Sh -L testfile.dat"),
        ("an XML profile on a file", "diskmeter diskspd -d60 -W10 -C5 -X peak.xml /mnt/data/vm.dat"),
        ("diskmeter's own options go first: the plan, no IO", "diskmeter diskspd --dry-run -c1G -b64K -o8 -d10 seq.dat"),
    ]),
    ("diskmeter iometer", &[
        ("two access specifications, 3 workers at QD 128, 30 s each", "diskmeter iometer --spec RandomWrites_8K --spec RandomReads_8K --workers 3 --qd 128 --time 30s /mnt/data"),
        ("an own specification: 8 KiB, 100 % random, 70 % reads", "diskmeter iometer --spec OLTP:8k,100,70 /mnt/data"),
        ("an Iometer .icf file, its C: on /mnt/data, Iometer's CSV", "diskmeter iometer --icf test.icf --target-map C:=/mnt/data --csv results.csv"),
    ]),
    ("diskmeter plan", &[
        ("what a VM with 4 P30 disks delivers for 10k IOPS of 8 KiB", "diskmeter plan --vm Standard_D8s_v5 --disks 4xP30 --cache None --workload iops=10000,bs=8k"),
        ("the cheapest configurations that meet a requirement", "diskmeter plan --workload iops=16000,bs=8k,read=70%,latency=1ms --optimize cost --top 3"),
        ("provision for a capture's p99 with 30 % headroom", "diskmeter plan --from-capture last --level p99 --growth 30% --optimize cost"),
        ("one disk's limits over IO sizes", "diskmeter plan --disks 1xP30 --io-sizes 8k,32k,64k,1m"),
    ]),
    ("diskmeter catalog", &[
        ("every disk tier and VM size", "diskmeter catalog list"),
        ("one tier, every figure with its source", "diskmeter catalog show P30"),
        ("the guides' catalog as JSON", "diskmeter catalog list --builtin-catalog guides --format json"),
    ]),
    ("diskmeter catalog list", &[
        ("every disk tier and VM size", "diskmeter catalog list"),
        ("the guides' catalog", "diskmeter catalog list --builtin-catalog guides"),
        ("every figure, for scripts", "diskmeter catalog list --format json"),
    ]),
    ("diskmeter catalog show", &[
        ("one disk tier", "diskmeter catalog show P30"),
        ("one VM size", "diskmeter catalog show Standard_D8s_v5"),
        ("every figure, for scripts", "diskmeter catalog show gp3 --format json"),
    ]),
    ("diskmeter emulate", &[
        ("the profiles (the catalog's disk tiers)", "diskmeter emulate profiles"),
        ("4 disks of a P30's caps, 4 GiB each (root)", "diskmeter emulate create --name vm --profile azure-p30 --disks 4 --size 4g"),
        ("an application inside the emulation's cgroup", "diskmeter emulate exec vm -- diskmeter run --filename=/dev/loop0"),
        ("remove it", "diskmeter emulate destroy vm"),
    ]),
    ("diskmeter emulate create", &[
        ("a P30 of 1 GiB; prints its device", "diskmeter emulate create --profile azure-p30"),
        ("caps of your own: 500 IOPS, 20 MiB/s", "diskmeter emulate create --name slow --iops 500 --bw 20m --size 2g"),
        ("a VM's 4 disks, each capped on its own", "diskmeter emulate create --name vm --profile azure-p30 --disks 4 --size 4g"),
    ]),
    ("diskmeter emulate destroy", &[
        ("remove the disk, its cgroup and backing file", "diskmeter emulate destroy vm"),
    ]),
    ("diskmeter emulate list", &[("the emulated disks", "diskmeter emulate list")]),
    ("diskmeter emulate exec", &[
        ("a run inside the cgroup: its IO to the disk is throttled", "diskmeter emulate exec vm -- diskmeter run --filename=/dev/loop0"),
        ("any program", "diskmeter emulate exec vm -- dd if=/dev/loop0 of=/dev/null bs=1M"),
    ]),
    ("diskmeter emulate profiles", &[("the profiles and their caps", "diskmeter emulate profiles")]),
    ("diskmeter capture", &[
        ("every disk with IO, 1 s samples, until Ctrl-C", "diskmeter capture"),
        ("an application's disks for an hour, saved as peak", "diskmeter capture --device nvme0n1 --duration 1h --name peak"),
        ("plus a per-IO block trace: sizes, random %, hot set (root)", "diskmeter capture --trace --device nvme0n1 --duration 10m"),
        ("iostat -x -o JSON's document", "diskmeter capture --duration 10s --format json"),
    ]),
    ("diskmeter replay", &[
        ("a capture's p90 load on a new volume for 5 minutes", "diskmeter replay last --level p90 /mnt/newvol --runtime 5m"),
        ("its p99 on an emulated P30, and as an fio job file", "diskmeter replay 12 --level p99 --emulate azure-p30 --emit-fio p99.fio"),
        ("a traced capture IO by IO on a device (destroys it)", "diskmeter replay 12 --exact /dev/sdc --allow-destroy"),
        ("the resolved workload only", "diskmeter replay 12 --random 30 --dry-run"),
    ]),
    ("diskmeter history", &[
        ("the saved runs, newest first", "diskmeter history"),
        ("one suite's runs this month", "diskmeter history --suite quick --since 2026-11-01"),
        ("the last 10 sweeps as JSON", "diskmeter history --kind sweep --limit 10 --format json"),
    ]),
    ("diskmeter show", &[
        ("the newest run: host, device, command line, a row per step", "diskmeter show last"),
        ("with every step's full report", "diskmeter show 12 --full"),
        ("the whole stored run as JSON", "diskmeter show 12 --format json"),
    ]),
    ("diskmeter export", &[
        ("a saved run as CSV", "diskmeter export 12 --format csv"),
        ("as fio's JSON, to a file", "diskmeter export last --format fio-json --output last.json"),
        ("as diskmeter's JSON", "diskmeter export 12 --format json"),
    ]),
    ("diskmeter compare", &[
        ("per step and metric: faster, slower or within noise", "diskmeter compare 12 15"),
        ("a regression is a change beyond 10 % (exit 1)", "diskmeter compare 12 15 --threshold 10"),
        ("as JSON", "diskmeter compare 12 last --format json"),
    ]),
    ("diskmeter analyze", &[
        ("a saved sweep's ceilings, crossover and knees again", "diskmeter analyze 14"),
        ("with its charts as PNG", "diskmeter analyze last --charts charts"),
        ("as JSON", "diskmeter analyze 14 --output-format json"),
    ]),
    ("diskmeter merge", &[
        ("several hosts' JSON results of one run, merged exactly", "diskmeter merge results/host1.json results/host2.json"),
        ("the aggregate as diskmeter's JSON", "diskmeter merge results/*.json --output-format json"),
        ("as fio's JSON, to a file", "diskmeter merge results/*.json --output-format fio-json --output merged.json"),
    ]),
    ("diskmeter requirements", &[
        ("the newest capture's checklist: p50/p90/p99/max/mean", "diskmeter requirements last"),
        ("per time window", "diskmeter requirements 12 --window normal=09:00-18:00,peak=12:00-13:00"),
        ("as CSV", "diskmeter requirements 12 --format csv"),
    ]),
    ("diskmeter check", &[
        ("a saved run against explicit requirements", "diskmeter check 15 --require iops=16k,read-lat-p99=2ms,mibps=200"),
        ("the newest run against a capture's p90", "diskmeter check last --capture 12 --level p90"),
        ("a suite run against a guide's published figures", "diskmeter check 20 --expect do-standard"),
        ("every profile with its figures", "diskmeter check --list-expect"),
    ]),
    ("diskmeter report", &[
        ("the newest run as one self-contained HTML file", "diskmeter report last -o report.html"),
        ("several runs in one report", "diskmeter report 12 15 -o two.html"),
        ("two runs compared", "diskmeter report --compare 12 15 -o compare.html"),
    ]),
    ("diskmeter chart", &[
        ("the charts of a run, one a line", "diskmeter chart 12 --list"),
        ("its latency percentiles as PNG", "diskmeter chart 12 --kind percentiles -o p99.png"),
        ("a suite's IOPS per step as SVG", "diskmeter chart 14 --kind suite-iops -o suite.svg"),
    ]),
    ("diskmeter serve", &[
        ("a read-only dashboard on http://127.0.0.1:8040/", "diskmeter serve"),
        ("on another port", "diskmeter serve --port 8080"),
        ("for other hosts, over another history", "diskmeter serve --listen 0.0.0.0:8040 --db /srv/history.db"),
    ]),
    ("diskmeter k8s", &[
        ("8 pods, 4 KiB random reads at QD 32 for 60 s each, one rank a pod", "diskmeter k8s manifest --pods 8 --image diskmeter:latest --storage-class premium --volume-size 100Gi --rw=randread --iodepth=32 --size=10g --runtime=60"),
        ("an fio job file on every pod", "diskmeter k8s manifest --pods 4 --image diskmeter:latest --storage-class gp3 --volume-size 50Gi jobs/mixed.fio"),
        ("into a file, for kubectl apply -f job.yaml", "diskmeter k8s manifest --pods 2 --image diskmeter:latest --storage-class standard --volume-size 10Gi --output job.yaml"),
    ]),
    ("diskmeter k8s manifest", &[
        ("8 pods, 4 KiB random reads at QD 32 for 60 s each", "diskmeter k8s manifest --pods 8 --image diskmeter:latest --storage-class premium --volume-size 100Gi --rw=randread --iodepth=32 --size=10g --runtime=60"),
        ("an fio job file on every pod, starting together in 2 minutes", "diskmeter k8s manifest --pods 4 --image diskmeter:latest --storage-class gp3 --volume-size 50Gi --start-in 2m jobs/mixed.fio"),
        ("into a file for kubectl apply -f", "diskmeter k8s manifest --pods 2 --image diskmeter:latest --storage-class standard --volume-size 10Gi --output job.yaml"),
    ]),
    ("diskmeter completions", &[
        ("bash (source it, or put it in /etc/bash_completion.d)", "diskmeter completions bash"),
        ("zsh", "diskmeter completions zsh"),
        ("fish", "diskmeter completions fish"),
    ]),
    ("diskmeter man", &[
        ("diskmeter.1 on stdout (man -l - reads it)", "diskmeter man"),
        ("a page per command into a folder", "diskmeter man -o /usr/local/share/man/man1"),
    ]),
];
