//! The examples of README.md and of every page of the user guide (`docs/*.md`), run and
//! compared with the outputs they show, so a change of defaults or output format fails here
//! until the page is updated; and every relative link of those pages resolves.
//!
//! Every ```` ```sh ```` block and every ```` ```text ```` block that starts with `$ ` (a shell
//! transcript) must follow a marker comment, which the renderer hides:
//!
//! - `<!-- check: NAME, SHOWN -->` before a `sh` block: its commands run with `sh`, and must
//!   exit 0. SHOWN says what the next ```` ```text ```` block holds: `stdout`, `stderr`,
//!   `stderr+stdout` (stderr first), or `nothing` (no output block follows; only the exit
//!   status is checked).
//! - `<!-- check: NAME -->` before a `$ ` transcript: each `$ command` runs with `sh`, and its
//!   stdout must equal the lines under it.
//! - `, timings vary` at the end of a check marker: `bench` output, where only the structure is
//!   compared (see [`mask_timings`]).
//! - `<!-- not checked: WHY -->`: the block is not run (too slow for CI, or not a phaseflow run).
//! - `<!-- figure: PATH -->` before an image `![...](FILE)`: after the page's examples, the file
//!   PATH they wrote (relative to the temporary folder) must equal FILE byte for byte, so the
//!   figure a page shows is the one its commands draw.
//!
//! Each page's examples run in page order in a temporary folder of its own (README.md first,
//! then `docs/*.md` by name), so a transcript can read the files of an earlier example of the
//! same page. `phaseflow` is the binary under test (put first on `PATH`),
//! `cargo run --release --` is replaced by `phaseflow`, `/tmp/pf` by the temporary folder's
//! `pf` (and back in the outputs), and `results/...` is relative to the temporary folder.
//!
//! The comparison is exact after a narrow normalisation ([`normalise`]): trailing blanks, the
//! thread count in `cpu (N threads)`, and lavapipe's LLVM and Mesa versions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The pages whose examples and links are checked: README.md, then `docs/*.md` by name.
fn pages() -> Vec<Page> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    std::iter::once(root.join("README.md"))
        .chain(docs)
        .map(|path| Page {
            name: path.strip_prefix(root).unwrap().display().to_string(),
            text: std::fs::read_to_string(&path).expect("the page is readable"),
            path,
        })
        .collect()
}

/// A Markdown page of the documentation.
struct Page {
    /// Its path relative to the repository, for messages (`docs/commands.md`).
    name: String,
    path: PathBuf,
    text: String,
}

/// What a `sh` example's output block shows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shown {
    Stdout,
    Stderr,
    StderrThenStdout,
    Nothing,
}

/// One checked block of a page.
#[derive(Debug)]
enum Example {
    /// A `sh` block and the output shown after it.
    Commands {
        script: String,
        shown: Shown,
        expected: String,
    },
    /// A `$ ` transcript: each command with the stdout shown under it.
    Transcript { steps: Vec<(String, String)> },
}

#[derive(Debug)]
struct Checked {
    name: String,
    /// 1-based line of the block in its page.
    line: usize,
    timings_vary: bool,
    example: Example,
}

/// A fenced code block: its language tag, first line (1-based) and body.
struct Block {
    lang: String,
    line: usize,
    body: String,
    /// The marker comment seen since the previous block, if any.
    marker: Option<String>,
}

fn blocks(text: &str, page: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut marker = None;
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(block) = open.as_mut() {
            if line.trim_start().starts_with("```") {
                out.push(open.take().unwrap());
            } else {
                block.body.push_str(line);
                block.body.push('\n');
            }
        } else if let Some(lang) = line.trim_start().strip_prefix("```") {
            open = Some(Block {
                lang: lang.trim().into(),
                line: i + 1,
                body: String::new(),
                marker: marker.take(),
            });
        } else if let Some(comment) = line.trim().strip_prefix("<!--") {
            let comment = comment.trim().strip_suffix("-->").unwrap_or(comment).trim();
            if comment.starts_with("check:") || comment.starts_with("not checked:") {
                marker = Some(comment.to_string());
            }
        }
    }
    assert!(open.is_none(), "{page} ends inside a code block");
    out
}

/// Splits `check: NAME[, SHOWN][, timings vary]` into its name, SHOWN and the timings flag.
fn parse_marker(marker: &str, line: usize, page: &str) -> (String, Option<Shown>, bool) {
    let body = marker.strip_prefix("check:").unwrap().trim();
    let mut parts: Vec<&str> = body.split(',').map(str::trim).collect();
    let timings_vary = parts.last() == Some(&"timings vary");
    if timings_vary {
        parts.pop();
    }
    let shown = parts.get(1).map(|s| match *s {
        "stdout" => Shown::Stdout,
        "stderr" => Shown::Stderr,
        "stderr+stdout" => Shown::StderrThenStdout,
        "nothing" => Shown::Nothing,
        other => {
            panic!("{page} line {line}: unknown output kind {other:?} in marker {marker:?}")
        }
    });
    (parts[0].to_string(), shown, timings_vary)
}

/// `$ command` lines each with the output lines under it.
fn transcript_steps(body: &str) -> Vec<(String, String)> {
    let mut steps: Vec<(String, String)> = Vec::new();
    for line in body.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push((command.to_string(), String::new()));
        } else {
            let (_, output) = steps.last_mut().expect("a transcript starts with `$ `");
            output.push_str(line);
            output.push('\n');
        }
    }
    steps
}

/// The checked examples in page order; panics on a `sh` block or transcript without a marker.
fn examples(text: &str, page: &str) -> Vec<Checked> {
    let blocks = blocks(text, page);
    let mut out = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let block = &blocks[i];
        i += 1;
        let is_transcript = block.lang == "text" && block.body.starts_with("$ ");
        if block.lang != "sh" && !is_transcript {
            continue;
        }
        let marker = block.marker.as_deref().unwrap_or_else(|| {
            panic!("{page} line {}: example without a `<!-- check: ... -->` or `<!-- not checked: ... -->` marker", block.line)
        });
        if marker.starts_with("not checked:") {
            continue;
        }
        let (name, shown, timings_vary) = parse_marker(marker, block.line, page);
        let example = if is_transcript {
            Example::Transcript {
                steps: transcript_steps(&block.body),
            }
        } else {
            let shown = shown.unwrap_or_else(|| {
                panic!(
                    "{page} line {}: a `sh` example's marker says what it shows",
                    block.line
                )
            });
            let expected = if shown == Shown::Nothing {
                String::new()
            } else {
                let output = blocks
                    .get(i)
                    .filter(|b| b.lang == "text" && b.marker.is_none());
                let output = output.unwrap_or_else(|| {
                    panic!(
                        "{page} line {}: `{name}` shows {shown:?} but no ```text block follows",
                        block.line
                    )
                });
                i += 1;
                output.body.clone()
            };
            Example::Commands {
                script: block.body.clone(),
                shown,
                expected,
            }
        };
        out.push(Checked {
            name,
            line: block.line,
            timings_vary,
            example,
        });
    }
    out
}

/// Replaces whatever lies between `start` and the next `end` (both kept) by `with`.
fn replace_between(line: &str, start: &str, end: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(start) {
        let after = &rest[at + start.len()..];
        let Some(stop) = after.find(end) else { break };
        out.push_str(&rest[..at + start.len()]);
        out.push_str(with);
        rest = &after[stop..];
    }
    out.push_str(rest);
    out
}

/// The normalisation applied to both the page's text and the actual output: trailing blanks
/// and trailing empty lines; the thread count of the CPU engine (the machine's core count);
/// lavapipe's LLVM version and vector width, and the driver's version after `driver=`.
fn normalise(text: &str, timings_vary: bool) -> String {
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut line = replace_between(line.trim_end(), "cpu (", " threads)", "N");
            line = replace_between(&line, "llvmpipe (LLVM ", ")", "…");
            if let Some(at) = line.find(" driver=") {
                line.truncate(at + " driver=".len());
                line.push('…');
            }
            if timings_vary {
                mask_timings(&line)
            } else {
                line
            }
        })
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// `bench` rows (table or CSV, starting with `reference`, `cpu` or `gpu`): the last three
/// columns (seconds, point-steps/s, ratio to the reference) become `#`, and runs of blanks one
/// blank, since column widths follow the numbers. Labels, devices, sizes and the deviation
/// lines (`... vs ...`) are still compared exactly.
fn mask_timings(line: &str) -> String {
    let is_row = ["reference", "cpu", "gpu"]
        .iter()
        .any(|b| line.starts_with(b))
        && !line.contains(" vs ");
    let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if !is_row {
        return collapsed;
    }
    if line.starts_with("reference,") || line.starts_with("cpu,") || line.starts_with("gpu,") {
        // seconds, point_steps_per_s, ratio_to_reference, ratio_to_against and ratio_to_peer
        // vary; `compensated`, `system` and `method` do not
        let fields: Vec<&str> = line.rsplitn(9, ',').collect();
        let vary = |x: &str| if x.is_empty() { "" } else { "#" };
        return format!(
            "{},#,#,#,{},{},{},{},{}",
            fields[8],
            fields[4],
            fields[3],
            vary(fields[2]),
            fields[1],
            vary(fields[0])
        );
    }
    let tokens: Vec<&str> = collapsed.split(' ').collect();
    let keep = tokens.len().saturating_sub(3);
    tokens[..keep]
        .iter()
        .copied()
        .chain(["#"; 3])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the examples run: a temporary folder, with the binary under test first on `PATH`.
struct Sandbox {
    dir: tempfile::TempDir,
    path_env: String,
}

impl Sandbox {
    fn new() -> Self {
        let bin = Path::new(env!("CARGO_BIN_EXE_phaseflow"))
            .parent()
            .unwrap()
            .to_path_buf();
        let mut paths = vec![bin];
        paths.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let path_env = std::env::join_paths(paths).unwrap().into_string().unwrap();
        Sandbox {
            dir: tempfile::tempdir().unwrap(),
            path_env,
        }
    }

    fn pf(&self) -> PathBuf {
        self.dir.path().join("pf")
    }

    /// Runs `script` with `sh -e` in the folder. The pages' lavapipe is the adapter
    /// (`WGPU_ADAPTER_NAME`), and `XDG_RUNTIME_DIR` is set so that lavapipe's warning about it
    /// (which the pages leave out, see docs/exit-codes-and-messages.md) is not printed.
    fn sh(&self, script: &str) -> Output {
        let script = script
            .replace("cargo run --release --", "phaseflow")
            .replace("/tmp/pf", self.pf().to_str().unwrap());
        Command::new("sh")
            .args(["-e", "-c", &script])
            .current_dir(self.dir.path())
            .env("PATH", &self.path_env)
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env("WGPU_ADAPTER_NAME", "llvmpipe")
            // `devices` shows this machine's calibration: none, whatever the machine keeps
            .env("PHASEFLOW_CACHE_DIR", self.pf().join("cache"))
            .output()
            .expect("sh runs")
    }

    /// An output as a page would show it: the temporary folder read as `/tmp/pf`.
    fn shown(&self, bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).replace(self.pf().to_str().unwrap(), "/tmp/pf")
    }
}

/// A failure message: the page's text and the actual output after normalisation, line by line.
fn difference(expected: &str, actual: &str, timings_vary: bool) -> Option<String> {
    let (expected, actual) = (
        normalise(expected, timings_vary),
        normalise(actual, timings_vary),
    );
    if expected == actual {
        return None;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut report = String::from("  (- the page, + actual; after normalisation)\n");
    for k in 0..e.len().max(a.len()) {
        match (e.get(k), a.get(k)) {
            (Some(x), Some(y)) if x == y => report.push_str(&format!("    {x}\n")),
            (x, y) => {
                x.into_iter()
                    .for_each(|x| report.push_str(&format!("  - {x}\n")));
                y.into_iter()
                    .for_each(|y| report.push_str(&format!("  + {y}\n")));
            }
        }
    }
    Some(report)
}

fn failed_command(output: &Output, sandbox: &Sandbox) -> Option<String> {
    (!output.status.success()).then(|| {
        format!(
            "  exited with {}; stderr:\n{}",
            output.status,
            sandbox.shown(&output.stderr)
        )
    })
}

/// Runs one example; `None` when it matches the page, else what differs.
fn check(example: &Checked, sandbox: &Sandbox) -> Option<String> {
    match &example.example {
        Example::Commands {
            script,
            shown,
            expected,
        } => {
            let output = sandbox.sh(script);
            if let Some(failure) = failed_command(&output, sandbox) {
                return Some(failure);
            }
            let (stdout, stderr) = (sandbox.shown(&output.stdout), sandbox.shown(&output.stderr));
            let actual = match shown {
                Shown::Stdout => stdout,
                Shown::Stderr => stderr,
                Shown::StderrThenStdout => stderr + &stdout,
                Shown::Nothing => return None,
            };
            difference(expected, &actual, example.timings_vary)
        }
        Example::Transcript { steps } => steps.iter().find_map(|(command, expected)| {
            let output = sandbox.sh(command);
            let stdout = sandbox.shown(&output.stdout);
            let failure = failed_command(&output, sandbox)
                .or_else(|| difference(expected, &stdout, example.timings_vary))?;
            // The transcript as the binary gives it, to paste over the page's (a registry's
            // listing, such as `phaseflow list`, changes with every new entry).
            Some(format!(
                "  at `$ {command}`\n{failure}  ready to paste:\n$ {command}\n{stdout}"
            ))
        }),
    }
}

/// `<!-- figure: PATH -->` markers: (1-based line, PATH the examples write, the image file the
/// page shows, relative to the page's folder).
fn figures(text: &str, page: &str) -> Vec<(usize, String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix("<!-- figure:") else {
            continue;
        };
        let written = rest.trim().strip_suffix("-->").unwrap_or(rest).trim();
        let image = lines[i + 1..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("!["))
            .and_then(|l| l.split_once("]("))
            .and_then(|(_, target)| target.strip_suffix(')'))
            .unwrap_or_else(|| {
                panic!(
                    "{page} line {}: a figure marker without an image after it",
                    i + 1
                )
            });
        out.push((i + 1, written.to_string(), image.to_string()));
    }
    out
}

/// Runs one page's examples in a folder of their own; each failure as a message.
fn check_page(page: &Page) -> (usize, Vec<String>) {
    let examples = examples(&page.text, &page.name);
    let sandbox = Sandbox::new();
    let mut failures: Vec<String> = examples
        .iter()
        .filter_map(|example| {
            let started = std::time::Instant::now();
            let failure = check(example, &sandbox);
            eprintln!(
                "{} example `{}` (line {}): {:.1} s",
                page.name,
                example.name,
                example.line,
                started.elapsed().as_secs_f64()
            );
            failure.map(|f| {
                format!(
                    "{} line {}, example `{}`:\n{f}",
                    page.name, example.line, example.name
                )
            })
        })
        .collect();
    for (line, written, image) in figures(&page.text, &page.name) {
        let drawn = std::fs::read(sandbox.dir.path().join(&written));
        let shown = std::fs::read(page.path.parent().unwrap().join(&image));
        match (drawn, shown) {
            (Ok(drawn), Ok(shown)) if drawn == shown => {}
            (drawn, _) => failures.push(format!(
                "{} line {line}: the figure {image} is not the {written} its examples drew ({}); copy that file over it",
                page.name,
                if drawn.is_ok() { "it differs" } else { "they drew none" }
            )),
        }
    }
    (examples.len(), failures)
}

#[test]
fn documented_examples_show_what_the_binary_does() {
    let started = std::time::Instant::now();
    let (mut count, mut failures) = (0, Vec::new());
    for page in pages() {
        let (n, f) = check_page(&page);
        count += n;
        failures.extend(f);
    }
    eprintln!(
        "{count} examples in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        count >= 30,
        "only {count} checked examples found: is the marker syntax broken?"
    );
    assert!(
        failures.is_empty(),
        "{} example(s) no longer show what the binary does; rerun them with the current \
         binary and update the page:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The page's text without its fenced code blocks, where `](` and `#` are not Markdown, and
/// with its inline code spans dropped (`keep_code` false: for links) or only their backticks
/// (true: for headings, whose anchors keep the code's text).
fn prose(text: &str, keep_code: bool) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let spans: Vec<&str> = line.split('`').collect();
            // Even pieces lie outside inline code.
            out.extend(spans.iter().step_by(if keep_code { 1 } else { 2 }).copied());
            out.push('\n');
        }
    }
    out
}

/// The anchors GitHub gives a page's headings: lower case, punctuation dropped, blanks as
/// hyphens, a repeated heading numbered `-1`, `-2`, ….
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in prose(text, true).lines() {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let slug: String = heading
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = out
            .iter()
            .filter(|a| {
                **a == slug
                    || a.strip_prefix(&format!("{slug}-"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count();
        out.push(if repeats == 0 {
            slug
        } else {
            format!("{slug}-{repeats}")
        });
    }
    out
}

/// Every `](TARGET)` of a page's prose: (1-based line, TARGET).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in prose(text, false).lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let folder = page.path.parent().unwrap();
        for (line, target) in links(&page.text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                page.path.clone()
            } else {
                folder.join(file)
            };
            if !path.exists() {
                broken.push(format!("{} line {line}: {target}: no such file", page.name));
                continue;
            }
            if !anchor.is_empty() {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&text).iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{} line {line}: {target}: no heading with that anchor",
                        page.name
                    ));
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_github() {
    let text = "# phaseflow\n## `DIR/stats.csv`\n```sh\n# not a heading\n```\n## Quick start: a Liouville-area study\n## Notes\n## Notes\n";
    assert_eq!(
        anchors(text),
        [
            "phaseflow",
            "dirstatscsv",
            "quick-start-a-liouville-area-study",
            "notes",
            "notes-1"
        ]
    );
    assert_eq!(
        links("see [a](b.md#c) and `[x](not-a-link)` and ![f](g.png)"),
        [(1, "b.md#c".to_string()), (1, "g.png".to_string())]
    );
}

#[test]
fn normalisation_is_narrow() {
    let line =
        "compared 2 points on gpu: llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu); cpu (2 threads)";
    assert_eq!(
        normalise(line, false),
        "compared 2 points on gpu: llvmpipe (LLVM …) (Vulkan, Cpu); cpu (N threads)"
    );
    // A number outside the timing columns still counts.
    assert!(difference("energy_mean 2.646983e0", "energy_mean 2.646984e0", false).is_some());
    let row = "cpu        f64        cpu (2 threads)      0.0087          5.748e8         5.33";
    assert_eq!(
        mask_timings(&normalise(row, false)),
        "cpu f64 cpu (N threads) # # #"
    );
    let csv =
        "gpu,\"gpu: llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)\",f32,100000,50,0.01,3.4e8,0.86,true,expression,0.97,verlet,0.12";
    assert_eq!(
        normalise(csv, true),
        "gpu,\"gpu: llvmpipe (LLVM …) (Vulkan, Cpu)\",f32,100000,50,#,#,#,true,expression,#,verlet,#"
    );
    // Without --peers the last column is empty, and stays so.
    let plain =
        "cpu,cpu (2 threads),f64,100000,50,0.0087,5.7e8,4.9,false,pendulum,,symplectic-euler-a,";
    assert_eq!(
        normalise(plain, true),
        "cpu,cpu (N threads),f64,100000,50,#,#,#,false,pendulum,,symplectic-euler-a,"
    );
}

/// The rows of the first table after `heading` in `text` (the lines starting with `| \``), and
/// the table's first line number (1-based).
fn table_rows<'a>(text: &'a str, heading: &str) -> (usize, Vec<&'a str>) {
    let start = text.find(heading).expect("the heading is on the page");
    let first = text[..start].lines().count();
    let lines = text[start..].lines().enumerate();
    let mut table = lines.skip_while(|(_, l)| !l.starts_with('|'));
    let (offset, _) = table.clone().next().expect("a table after the heading");
    // `offset` counts from the heading's line, `first` the lines before it.
    let offset = offset + 1;
    let rows = table
        .by_ref()
        .take_while(|(_, l)| l.starts_with('|'))
        .map(|(_, l)| l)
        .filter(|l| l.starts_with("| `"))
        .collect();
    (first + offset, rows)
}

/// The column names a row documents: the backticked words of its first cell.
fn row_columns(row: &str) -> Vec<&str> {
    let first_cell = row[1..].split(" | ").next().unwrap_or("");
    first_cell.split('`').skip(1).step_by(2).collect()
}

/// The table's rows for `columns`, in their order: each documented row once, where its first
/// column falls, and a row to fill in for a column no row documents; rows of columns that
/// are gone are dropped.
fn regenerated_rows(rows: &[&str], columns: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for column in columns {
        match rows.iter().find(|row| row_columns(row).contains(column)) {
            Some(row) if row_columns(row).iter().all(|c| columns.contains(c)) => {
                if !out.iter().any(|r| r == row) {
                    out.push(row.to_string());
                }
            }
            _ => out.push(format!("| `{column}` | (what it measures) | (units) |")),
        }
    }
    out
}

/// docs/output-files.md's table of stats.csv documents every column the binary writes, in
/// order: step, t, points, then the registered measurements' columns. A new column fails here
/// with the table to paste, its new row left to fill in.
#[test]
fn the_stats_csv_table_documents_every_column_in_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/output-files.md")).unwrap();
    let (line, rows) = table_rows(&page, "## `DIR/stats.csv`");
    let documented: Vec<&str> = rows.iter().flat_map(|r| row_columns(r)).collect();
    let measured = phaseflow::measure::row::columns().iter().map(|c| c.name);
    let columns: Vec<&str> = ["step", "t", "points"]
        .into_iter()
        .chain(measured)
        .collect();
    assert!(
        documented == columns,
        "docs/output-files.md line {line}: the stats.csv table documents\n{documented:?}\n\
         and stats.csv has\n{columns:?}\n\
         Replace the table's rows with these (and fill in any new one):\n\n{}\n",
        regenerated_rows(&rows, &columns).join("\n")
    );
}

#[test]
fn regenerated_rows_follow_the_columns() {
    let rows = [
        "| `a` | first | — |",
        "| `b`, `c` | pair | — |",
        "| `gone` | removed | — |",
    ];
    assert_eq!(
        regenerated_rows(&rows, &["a", "b", "c", "new"]),
        [
            "| `a` | first | — |",
            "| `b`, `c` | pair | — |",
            "| `new` | (what it measures) | (units) |"
        ]
    );
    assert_eq!(row_columns("| `b`, `c` | x \\| y | — |"), ["b", "c"]);
}
