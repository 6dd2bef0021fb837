//! The Rust `plist` crate's side of the peers benchmark: `harness-rust DIR ROUNDS` reads one
//! shape's inputs (see ../make_inputs.py) and prints one line
//! `operation<TAB>rust-plist<TAB>seconds` per timed round. The crate has no OpenStep reader
//! and refuses UIDs in XML (UidNotSupportedInXmlPlist): it writes no XML archive (nor the archive shape's documents). See ../run.sh.
use plist::Value;
use std::io::Cursor;
use std::time::Instant;

fn read(path: String) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn report(operation: &str, input: &str, round: usize, seconds: f64) {
    if round > 0 {
        println!("{operation}-{input}\trust-plist\t{seconds:.9}");
    }
}

struct Input {
    name: &'static str,
    binary: Vec<Vec<u8>>,
    xml: Vec<Vec<u8>>,
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let directory = &arguments[1];
    let rounds: usize = arguments[2].parse().expect("ROUNDS");
    let inputs = vec![
        Input {
            name: "small",
            binary: (0..1000).map(|i| read(format!("{directory}/small/{i:04}.bplist"))).collect(),
            xml: (0..1000).map(|i| read(format!("{directory}/small/{i:04}.xml"))).collect(),
        },
        Input {
            name: "generic",
            binary: vec![read(format!("{directory}/generic.bplist"))],
            xml: vec![read(format!("{directory}/generic.xml"))],
        },
        Input {
            name: "archive",
            binary: vec![read(format!("{directory}/archive.bplist"))],
            xml: vec![read(format!("{directory}/archive.xml"))],
        },
    ];
    // Round 0 is the warm-up, not reported. Operations alternate within each round.
    for round in 0..=rounds {
        for input in &inputs {
            let start = Instant::now();
            let trees: Vec<Value> = input
                .binary
                .iter()
                .map(|bytes| Value::from_reader(Cursor::new(bytes)).expect("binary parse"))
                .collect();
            report("parse-binary", input.name, round, start.elapsed().as_secs_f64());
            drop(trees);

            let start = Instant::now();
            let trees: Vec<Value> = input
                .xml
                .iter()
                .map(|bytes| Value::from_reader_xml(Cursor::new(bytes)).expect("xml parse"))
                .collect();
            report("parse-xml", input.name, round, start.elapsed().as_secs_f64());
            drop(trees);

            let trees: Vec<Value> = input
                .binary
                .iter()
                .map(|bytes| Value::from_reader(Cursor::new(bytes)).expect("binary parse"))
                .collect();
            let start = Instant::now();
            let mut total = 0;
            for tree in &trees {
                let mut out = Vec::new();
                tree.to_writer_binary(&mut out).expect("binary");
                total += out.len();
            }
            report("write-binary", input.name, round, start.elapsed().as_secs_f64());
            assert!(total > 0);

            let start = Instant::now();
            let mut total = 0;
            let mut written = true;
            for tree in &trees {
                let mut out = Vec::new();
                // An archive's UIDs have no XML form in the crate: no row.
                written = written && tree.to_writer_xml(&mut out).is_ok();
                total += out.len();
            }
            if written {
                report("write-xml", input.name, round, start.elapsed().as_secs_f64());
                assert!(total > 0);
            }

            let start = Instant::now();
            drop(trees);
            report("release", input.name, round, start.elapsed().as_secs_f64());
        }
    }
}
