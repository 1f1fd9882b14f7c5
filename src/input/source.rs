//! Opening an input: a path (plain, `.zst`, `.bz2` or `.gz`) or `-` for standard input, telling a
//! PGN collection from a position list by its name, and counting the bytes read for progress;
//! and the one policy turning the paths a user names into the files read ([`expand`]).

use std::{
    fs::File,
    io::{self, BufRead as _, BufReader, Read},
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
};

use super::InputError;

/// What an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// PGN games (`.pgn`, optionally compressed).
    Pgn,
    /// One position per line (EPD, FEN, perft suites, CSV with the FEN first).
    PositionLines,
}

/// Compressed forms an input may come in, by file name suffix.
const COMPRESSIONS: [&str; 3] = [".zst", ".bz2", ".gz"];

/// An input file, decompressed as needed.
pub struct Source {
    /// The path as given (`-` for standard input).
    pub name: String,
    /// What it holds.
    pub kind: InputKind,
    /// Its decompressed bytes.
    pub reader: Box<dyn Read + Send>,
    /// Bytes read so far from the file itself (compressed bytes for compressed files).
    pub bytes_read: Arc<AtomicU64>,
}

impl Source {
    /// Opens `path`; `-` reads standard input (taken as PGN unless `kind` says otherwise).
    pub fn open(path: &Path, kind: Option<InputKind>) -> Result<Source, InputError> {
        let raw: Box<dyn Read + Send> = if path == Path::new("-") {
            Box::new(io::stdin())
        } else {
            Box::new(File::open(path).map_err(|source| InputError::Open { path: path.to_owned(), source })?)
        };
        Source::from_reader(path, raw, kind)
    }

    /// An input read from `raw` (a file's bytes fetched by other means: from a cluster's file
    /// system, say), named `path`, whose suffix says how it is compressed, as for
    /// [`Source::open`].
    pub fn from_reader(path: &Path, raw: Box<dyn Read + Send>, kind: Option<InputKind>) -> Result<Source, InputError> {
        let name = path.display().to_string();
        let kind =
            kind.unwrap_or(if is_pgn_name(&name) || name == "-" { InputKind::Pgn } else { InputKind::PositionLines });
        let bytes_read = Arc::new(AtomicU64::new(0));
        let mut raw = BufReader::with_capacity(1 << 16, Counting { inner: raw, count: bytes_read.clone() });
        let read_error = |source| InputError::Read { path: path.to_owned(), source };
        // Standard input and files named without a compression suffix (a pipe, `<(cat x.zst)`)
        // are told by their first bytes.
        let compression = match COMPRESSIONS.iter().find(|suffix| name.ends_with(**suffix)) {
            Some(suffix) => Some(*suffix),
            None => sniffed_compression(raw.fill_buf().map_err(read_error)?),
        };
        let reader: Box<dyn Read + Send> = if compression == Some(".zst") {
            Box::new(
                zstd::Decoder::with_buffer(raw).map_err(|source| InputError::Read { path: path.to_owned(), source })?,
            )
        } else if compression == Some(".bz2") {
            Box::new(bzip2::bufread::MultiBzDecoder::new(raw))
        } else if compression == Some(".gz") {
            Box::new(flate2::bufread::MultiGzDecoder::new(raw))
        } else {
            Box::new(raw)
        };
        Ok(Source { name, kind, reader, bytes_read })
    }

    /// This input with its bytes read (and decompressed) on a thread of their own, a few
    /// chunks ahead of its reader: for a reader that has a core to spare, as the split of one
    /// file in a distributed build, whose decompression and splitting then overlap.
    pub fn read_ahead(mut self) -> Source {
        self.reader = Box::new(ReadAhead::spawn(self.reader));
        self
    }
}

/// The bytes of a reader read on another thread ([`Source::read_ahead`]).
struct ReadAhead {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    at: usize,
    /// The end of the input was read (the thread's last message, an empty chunk).
    ended: bool,
    /// Why the thread could not be started, reported by the first read.
    not_started: Option<io::Error>,
}

impl ReadAhead {
    /// Chunks read ahead: 4 of 1 MiB.
    const CHUNK: usize = 1 << 20;
    const AHEAD: usize = 4;

    fn spawn(inner: Box<dyn Read + Send>) -> ReadAhead {
        let (tx, chunks) = mpsc::sync_channel(Self::AHEAD);
        let spawned = std::thread::Builder::new().name("tabiya-read-ahead".into()).spawn(move || Self::run(inner, &tx));
        ReadAhead { chunks, current: Vec::new(), at: 0, ended: false, not_started: spawned.err() }
    }

    /// Sends the chunks of `inner`, then an empty chunk at its end, or the error that stopped
    /// it after the bytes before it; stops when the reader is gone.
    fn run(mut inner: Box<dyn Read + Send>, tx: &mpsc::SyncSender<io::Result<Vec<u8>>>) {
        loop {
            let mut chunk = vec![0; Self::CHUNK];
            let mut filled = 0;
            let result = loop {
                match inner.read(&mut chunk[filled..]) {
                    Ok(0) => break Ok(()),
                    Ok(n) if filled + n == Self::CHUNK => {
                        filled += n;
                        break Ok(());
                    }
                    Ok(n) => filled += n,
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(err) => break Err(err),
                }
            };
            let at_end = filled < Self::CHUNK;
            chunk.truncate(filled);
            if filled > 0 && tx.send(Ok(chunk)).is_err() {
                return;
            }
            match result {
                Err(err) => return drop(tx.send(Err(err))),
                Ok(()) if at_end => return drop(tx.send(Ok(Vec::new()))),
                Ok(()) => {}
            }
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(err) = self.not_started.take() {
            return Err(err);
        }
        while self.at == self.current.len() {
            if self.ended {
                return Ok(0);
            }
            match self.chunks.recv() {
                Ok(Ok(chunk)) if chunk.is_empty() => self.ended = true,
                Ok(Ok(chunk)) => (self.current, self.at) = (chunk, 0),
                Ok(Err(err)) => return Err(err),
                // Gone without its end: the thread panicked (a decoder's bug), which must not
                // pass for the end of the input.
                Err(mpsc::RecvError) => return Err(io::Error::other("the thread reading the input stopped")),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The suffix of the compressed format `start` (a stream's first bytes) is in, if any: zstd
/// frames, gzip members and bzip2 streams begin with magic numbers no PGN text begins with.
fn sniffed_compression(start: &[u8]) -> Option<&'static str> {
    match start {
        [0x28, 0xB5, 0x2F, 0xFD, ..] => Some(".zst"),
        [0x1F, 0x8B, ..] => Some(".gz"),
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(".bz2"),
        _ => None,
    }
}

/// Which files of a directory [`expand`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// PGN collections only (by name, see [`is_pgn_name`]): what ingest reads.
    Pgn,
    /// Every file: PGN collections and position lists alike.
    Any,
}

/// The files `paths` name, in order: `-` (standard input) and files as given, whatever their
/// names (pipes and devices too, such as a shell's `<(zstdcat …)`); directories searched
/// recursively (following symbolic links), in sorted order, for the `wanted` files. A path that
/// does not exist is an error, before anything is read.
///
/// What a directory holds that cannot be read as a file is passed over with the reason
/// ([`Expansion::passed_over`]), not followed: a FIFO or device (reading one could wait
/// forever), a symbolic link back to a directory above it (a loop), an entry that cannot be
/// listed or a link to nothing.
pub fn expand(paths: &[PathBuf], wanted: Wanted) -> Result<Expansion, InputError> {
    let mut expansion = Expansion::default();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            for entry in walkdir::WalkDir::new(path).follow_links(true) {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(err) if err.depth() == 0 => {
                        return Err(InputError::List { path: path.clone(), source: err.into() });
                    }
                    Err(err) => {
                        let at = err.path().unwrap_or(path).to_owned();
                        let reason = match (err.loop_ancestor(), err.io_error()) {
                            (Some(ancestor), _) => {
                                format!("a symbolic link back to {}, a loop: not followed", ancestor.display())
                            }
                            (None, Some(io)) if io.kind() == io::ErrorKind::NotFound => {
                                "a symbolic link to nothing".to_owned()
                            }
                            _ => format!("cannot be listed: {err}"),
                        };
                        expansion.passed_over.push((at, reason));
                        continue;
                    }
                };
                let kind = entry.file_type();
                if kind.is_dir() || !(wanted == Wanted::Any || is_pgn_name(&entry.path().to_string_lossy())) {
                    continue;
                }
                match kind.is_file() {
                    true => found.push(entry.into_path()),
                    false => expansion.passed_over.push((
                        entry.into_path(),
                        "not a regular file (a FIFO, socket or device, which could be read forever)".to_owned(),
                    )),
                }
            }
            found.sort();
            expansion.files.extend(found);
        } else if path.as_os_str() == "-" || path.exists() {
            expansion.files.push(path.clone());
        } else {
            return Err(InputError::Missing { path: path.clone() });
        }
    }
    expansion.passed_over.sort();
    Ok(expansion)
}

/// What [`expand`] found.
#[derive(Debug, Default)]
pub struct Expansion {
    /// The files to read, in order.
    pub files: Vec<PathBuf>,
    /// Entries of the directories searched that are not read, each with why.
    pub passed_over: Vec<(PathBuf, String)>,
}

impl Expansion {
    /// A line for each entry passed over: `passed over PATH: REASON`.
    pub fn passed_over_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.passed_over.iter().map(|(path, reason)| format!("passed over {}: {reason}", path.display()))
    }
}

/// Whether a file name is a PGN collection: `.pgn`, optionally `.zst`, `.bz2` or `.gz`.
pub fn is_pgn_name(name: &str) -> bool {
    let base = COMPRESSIONS.iter().find_map(|suffix| name.strip_suffix(suffix)).unwrap_or(name);
    base.to_ascii_lowercase().ends_with(".pgn")
}

/// A reader that counts the bytes it hands out.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn pgn_names() {
        for name in ["a.pgn", "b.PGN", "c.pgn.zst", "d.pgn.bz2", "e.pgn.gz"] {
            assert!(is_pgn_name(name), "{name}");
        }
        for name in ["a.epd", "b.pgn.xz", "c.zst", "pgn"] {
            assert!(!is_pgn_name(name), "{name}");
        }
    }

    #[test]
    fn expansion_keeps_named_files_searches_directories_and_refuses_missing_paths()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("sub"))?;
        for name in ["b.pgn", "a.epd", "sub/c.pgn.zst", "notes.txt"] {
            std::fs::write(dir.path().join(name), "")?;
        }
        let root = dir.path().to_owned();
        let pgn = expand(std::slice::from_ref(&root), Wanted::Pgn)?.files;
        assert_eq!(pgn, [root.join("b.pgn"), root.join("sub/c.pgn.zst")]);
        assert_eq!(expand(std::slice::from_ref(&root), Wanted::Any)?.files.len(), 4);
        let named = [root.join("notes.txt"), PathBuf::from("-"), PathBuf::from("/dev/null")];
        assert_eq!(expand(&named, Wanted::Pgn)?.files, named);
        assert!(matches!(expand(&[root.join("missing.pgn")], Wanted::Any), Err(InputError::Missing { .. })));
        Ok(())
    }

    /// Hands out its bytes a few at a time, then fails.
    struct Failing {
        bytes: Vec<u8>,
        at: usize,
    }

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.bytes.len() {
                return Err(io::Error::other("the disk went away"));
            }
            let n = buf.len().min(7919).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn read_ahead_gives_every_byte_then_the_error() -> Result<(), Box<dyn std::error::Error>> {
        // Several chunks and a part of one, of bytes that differ from chunk to chunk.
        let bytes: Vec<u8> = (0..3 * ReadAhead::CHUNK + 12_345).map(|i| (i * 31 + i / 1000) as u8).collect();
        let source = |inner: Box<dyn Read + Send>| Source::from_reader(Path::new("x.pgn"), inner, None);
        let mut whole = Vec::new();
        source(Box::new(io::Cursor::new(bytes.clone())))?.read_ahead().reader.read_to_end(&mut whole)?;
        assert!(whole == bytes);

        let mut ahead = source(Box::new(Failing { bytes: bytes.clone(), at: 0 }))?.read_ahead().reader;
        let mut read = Vec::new();
        let mut buf = vec![0; 100_000];
        let error = loop {
            match ahead.read(&mut buf) {
                Ok(0) => panic!("the error was lost"),
                Ok(n) => read.extend_from_slice(&buf[..n]),
                Err(err) => break err,
            }
        };
        assert!(read == bytes, "{} bytes before the error, not {}", read.len(), bytes.len());
        assert_eq!(error.to_string(), "the disk went away");
        Ok(())
    }

    /// Panics after a few bytes, as a decoder's bug would.
    struct Panicking(bool);

    impl Read for Panicking {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            assert!(!std::mem::replace(&mut self.0, true), "a decoder's bug");
            buf[..3].copy_from_slice(b"abc");
            Ok(3)
        }
    }

    #[test]
    fn a_panic_while_reading_ahead_is_an_error_not_the_end() -> Result<(), InputError> {
        let source = Source::from_reader(Path::new("x.pgn"), Box::new(Panicking(false)), None)?;
        let mut read = Vec::new();
        let error = source.read_ahead().reader.read_to_end(&mut read);
        assert!(error.is_err_and(|err| err.to_string().contains("stopped")), "{read:?}");
        Ok(())
    }

    #[test]
    fn every_compression_reads_back() -> Result<(), Box<dyn std::error::Error>> {
        let text = b"[Event \"x\"]\n\n1. e4 e5 1-0\n".repeat(100);
        let dir = tempfile::tempdir()?;
        let write = |name: &str, bytes: Vec<u8>| -> std::io::Result<PathBuf> {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes)?;
            Ok(path)
        };
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text)?;
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        bz.write_all(&text)?;
        let paths = [
            write("a.pgn", text.clone())?,
            write("a.pgn.zst", zstd::encode_all(&text[..], 3)?)?,
            write("a.pgn.gz", gz.finish()?)?,
            write("a.pgn.bz2", bz.finish()?)?,
        ];
        for path in paths {
            let mut source = Source::open(&path, None)?;
            assert_eq!(source.kind, InputKind::Pgn);
            let mut out = Vec::new();
            source.reader.read_to_end(&mut out)?;
            assert_eq!(out, text, "{}", path.display());
            assert_eq!(source.bytes_read.load(Ordering::Relaxed), std::fs::metadata(&path)?.len());
        }
        Ok(())
    }
}
