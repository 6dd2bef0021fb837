//! The Rust `plist` crate's side of the peers benchmark: `harness-rust DIR ROUNDS` prints
//! one line `operation<TAB>rust-plist<TAB>seconds` per timed round. See ../run.sh.
use plist::Value;
use std::io::Cursor;
use std::time::Instant;

fn read(path: String) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn parse(bytes: &[u8]) -> Value {
    Value::from_reader(Cursor::new(bytes)).expect("rust plist fails to parse")
}

fn report(operation: &str, round: usize, seconds: f64) {
    if round > 0 {
        println!("{operation}\trust-plist\t{seconds:.9}");
    }
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let directory = &arguments[1];
    let rounds: usize = arguments[2].parse().expect("ROUNDS");
    let small: Vec<Vec<u8>> = (0..1000).map(|i| read(format!("{directory}/small/{i:04}.bplist"))).collect();
    let generic = read(format!("{directory}/generic.bplist"));
    let generic_xml = read(format!("{directory}/generic.xml"));
    // Round 0 is the warm-up, not reported. Operations alternate within each round.
    for round in 0..=rounds {
        let start = Instant::now();
        let trees: Vec<Value> = small.iter().map(|bytes| parse(bytes)).collect();
        report("parse-binary-small", round, start.elapsed().as_secs_f64());

        let start = Instant::now();
        let mut total = 0;
        for tree in &trees {
            let mut out = Vec::new();
            tree.to_writer_xml(&mut out).expect("xml");
            total += out.len();
        }
        report("write-xml-small", round, start.elapsed().as_secs_f64());
        assert!(total > 0);
        drop(trees);

        let tree = parse(&generic);
        let start = Instant::now();
        drop(tree);
        report("release-generic", round, start.elapsed().as_secs_f64());

        let start = Instant::now();
        let tree = parse(&generic);
        report("parse-binary-generic", round, start.elapsed().as_secs_f64());

        let start = Instant::now();
        let mut out = Vec::new();
        tree.to_writer_binary(&mut out).expect("binary");
        report("write-binary-generic", round, start.elapsed().as_secs_f64());
        drop(tree);

        let start = Instant::now();
        let tree = Value::from_reader_xml(Cursor::new(&generic_xml)).expect("xml parse");
        report("parse-xml-generic", round, start.elapsed().as_secs_f64());
        drop(tree);
        // write-xml-archive: the crate refuses UIDs in XML (UidNotSupportedInXmlPlist).
    }
}
