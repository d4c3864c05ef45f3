//! A persistent on-disk cache of compiled kernels, safe for many processes sharing one
//! directory.
//!
//! - Keys are SHA-256 digests of everything that determines the artifact (source text, options,
//!   architecture, driver version), so a stale entry can never be returned for new inputs.
//! - Entries are written to a temporary file in the cache directory and renamed into place:
//!   a reader sees either no entry or a complete one. Several processes building the same key at
//!   once each rename a complete, identical entry; the last rename wins and one valid entry
//!   remains.
//! - Every entry carries a header with its key and a digest of its payload; an entry that fails
//!   the check (truncated, corrupt, foreign) is rebuilt, with a warning on stderr.
//! - A hit calls no builder (no NVRTC).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::Error;

const MAGIC: &[u8; 8] = b"GT4RSK1\n";
const HEADER_LEN: usize = MAGIC.len() + 32 + 8 + 32;

/// A cache key: the digest of the parts that determine an artifact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

impl CacheKey {
    /// Digests `parts` (length-prefixed, so `["ab", "c"]` and `["a", "bc"]` differ).
    pub fn of(parts: &[&[u8]]) -> CacheKey {
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        CacheKey(h.finalize().into())
    }
    /// The key as 64 lowercase hexadecimal digits (the entry's file name).
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// How an artifact was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Found in the cache and valid.
    Hit,
    /// Not in the cache: built and stored.
    Built,
    /// The stored entry was damaged and has been rebuilt.
    Rebuilt,
}

/// One entry as listed by [`KernelCache::list`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry's key, in hexadecimal.
    pub key: String,
    /// What it holds (the program's name).
    pub label: String,
    /// Its size on disk.
    pub bytes: u64,
    /// Whether it decodes as an entry of its key (a damaged entry is rebuilt on use).
    pub valid: bool,
}

/// A directory of cached artifacts.
#[derive(Clone, Debug)]
pub struct KernelCache {
    dir: PathBuf,
}

impl KernelCache {
    /// The cache in `dir` (created if missing).
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, Error> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|e| {
            Error::Io(format!(
                "cannot create cache directory {}: {e}",
                dir.display()
            ))
        })?;
        Ok(KernelCache { dir })
    }

    /// `GT4RS_CACHE_DIR`, else `$XDG_CACHE_HOME/gt4rs`, else `$HOME/.cache/gt4rs`, else a
    /// directory under the system temporary directory.
    pub fn default_dir() -> PathBuf {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        if let Some(dir) = env("GT4RS_CACHE_DIR") {
            return dir;
        }
        if let Some(xdg) = env("XDG_CACHE_HOME") {
            return xdg.join("gt4rs");
        }
        if let Some(home) = env("HOME") {
            return home.join(".cache").join("gt4rs");
        }
        std::env::temp_dir().join("gt4rs-cache")
    }

    /// The cache in [`KernelCache::default_dir`] (created if missing).
    ///
    /// # Errors
    /// [`Error::Io`] where the directory cannot be created.
    pub fn open_default() -> Result<Self, Error> {
        Self::open(Self::default_dir())
    }

    /// The directory holding the entries.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}.kernel", key.hex()))
    }

    /// The artifact for `key`, from the cache or from `build` (whose result is then stored).
    /// `label` names the artifact in listings (e.g. the program and architecture).
    pub fn get_or_build(
        &self,
        key: &CacheKey,
        label: &str,
        build: impl FnOnce() -> Result<Vec<u8>, Error>,
    ) -> Result<(Vec<u8>, Outcome), Error> {
        let path = self.entry_path(key);
        let mut outcome = Outcome::Built;
        match fs::read(&path) {
            Ok(bytes) => match decode(&bytes, key) {
                Ok((payload, _)) => return Ok((payload.to_vec(), Outcome::Hit)),
                Err(why) => {
                    eprintln!(
                        "gt4rs: warning: cache entry {} is damaged ({why}); rebuilding it",
                        path.display()
                    );
                    outcome = Outcome::Rebuilt;
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::Io(format!("cannot read {}: {e}", path.display()))),
        }
        let payload = build()?;
        self.store(key, label, &payload)?;
        Ok((payload, outcome))
    }

    /// Writes an entry atomically (temporary file + rename in the same directory).
    pub fn store(&self, key: &CacheKey, label: &str, payload: &[u8]) -> Result<(), Error> {
        let path = self.entry_path(key);
        let io = |what: &str, e: std::io::Error| {
            Error::Io(format!("{what} in {}: {e}", self.dir.display()))
        };
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)
            .map_err(|e| io("cannot create a temporary file", e))?;
        tmp.write_all(&encode(key, label, payload))
            .map_err(|e| io("cannot write a cache entry", e))?;
        tmp.as_file()
            .sync_all()
            .map_err(|e| io("cannot sync a cache entry", e))?;
        tmp.persist(&path)
            .map_err(|e| io("cannot rename a cache entry into place", e.error))?;
        Ok(())
    }

    /// Every entry, with its label and whether it passes the integrity check.
    pub fn list(&self) -> Result<Vec<Entry>, Error> {
        let mut entries = Vec::new();
        let dir = fs::read_dir(&self.dir)
            .map_err(|e| Error::Io(format!("cannot list {}: {e}", self.dir.display())))?;
        for item in dir.flatten() {
            let path = item.path();
            if path.extension().and_then(|e| e.to_str()) != Some("kernel") {
                continue;
            }
            let hex = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            let bytes = fs::read(&path).unwrap_or_default();
            let key = parse_hex(&hex);
            let decoded = key.as_ref().map(|k| decode(&bytes, k));
            let (valid, label) = match decoded {
                Some(Ok((_, label))) => (true, label),
                _ => (false, String::new()),
            };
            entries.push(Entry {
                key: hex,
                label,
                bytes: bytes.len() as u64,
                valid,
            });
        }
        entries.sort_by(|a, b| a.label.cmp(&b.label).then(a.key.cmp(&b.key)));
        Ok(entries)
    }

    /// Removes every entry (and stray temporary files); returns how many entries were removed.
    pub fn clear(&self) -> Result<usize, Error> {
        let mut removed = 0;
        let dir = fs::read_dir(&self.dir)
            .map_err(|e| Error::Io(format!("cannot list {}: {e}", self.dir.display())))?;
        for item in dir.flatten() {
            let path = item.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let is_entry = name.ends_with(".kernel");
            if is_entry || name.starts_with(".tmp") {
                fs::remove_file(&path)
                    .map_err(|e| Error::Io(format!("cannot remove {}: {e}", path.display())))?;
                removed += usize::from(is_entry);
            }
        }
        Ok(removed)
    }
}

fn encode(key: &CacheKey, label: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + label.len() + payload.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(&(label.len() as u64).to_le_bytes());
    out.extend_from_slice(label.as_bytes());
    out.extend_from_slice(payload);
    out
}

/// Checks an entry against `key`; returns the payload and label.
fn decode<'a>(bytes: &'a [u8], key: &CacheKey) -> Result<(&'a [u8], String), &'static str> {
    if bytes.len() < HEADER_LEN + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a gt4rs kernel entry");
    }
    let mut at = MAGIC.len();
    if bytes[at..at + 32] != key.0 {
        return Err("stored key differs from its file name");
    }
    at += 32;
    let len = u64::from_le_bytes(
        bytes[at..at + 8]
            .try_into()
            .map_err(|_| "truncated header")?,
    ) as usize;
    at += 8;
    let digest = &bytes[at..at + 32];
    at += 32;
    let label_len = u64::from_le_bytes(
        bytes[at..at + 8]
            .try_into()
            .map_err(|_| "truncated header")?,
    ) as usize;
    at += 8;
    let label_end = at.checked_add(label_len).ok_or("bad label length")?;
    if bytes.len() != label_end.checked_add(len).ok_or("bad payload length")? {
        return Err("truncated or oversized payload");
    }
    let label = String::from_utf8_lossy(&bytes[at..label_end]).into_owned();
    let payload = &bytes[label_end..];
    if Sha256::digest(payload).as_slice() != digest {
        return Err("payload digest mismatch");
    }
    Ok((payload, label))
}

fn parse_hex(hex: &str) -> Option<CacheKey> {
    if hex.len() != 64 {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(CacheKey(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn temp_cache() -> (tempfile::TempDir, KernelCache) {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = KernelCache::open(dir.path()).expect("open");
        (dir, cache)
    }

    #[test]
    fn hit_after_build_and_no_builder_call_on_hit() {
        let (_d, cache) = temp_cache();
        let key = CacheKey::of(&[b"source", b"sm_90", b"opts"]);
        let (a, o) = cache
            .get_or_build(&key, "p sm_90", || Ok(b"ptx".to_vec()))
            .expect("build");
        assert_eq!((a.as_slice(), o), (&b"ptx"[..], Outcome::Built));
        let (b, o) = cache
            .get_or_build(&key, "p sm_90", || panic!("a hit must not build"))
            .expect("hit");
        assert_eq!((b.as_slice(), o), (&b"ptx"[..], Outcome::Hit));
        assert_ne!(key, CacheKey::of(&[b"sourc", b"esm_90", b"opts"]));
        let listed = cache.list().expect("list");
        assert_eq!(listed.len(), 1);
        assert!(listed[0].valid);
        assert_eq!(listed[0].label, "p sm_90");
        assert_eq!(cache.clear().expect("clear"), 1);
        assert!(cache.list().expect("list").is_empty());
    }

    #[test]
    fn corrupt_entries_are_rebuilt() {
        let (_d, cache) = temp_cache();
        let key = CacheKey::of(&[b"k"]);
        cache
            .get_or_build(&key, "k", || Ok(vec![7; 100]))
            .expect("build");
        let path = cache.entry_path(&key);
        let mut bytes = fs::read(&path).expect("entry");
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(&path, &bytes).expect("corrupt it");
        assert!(!cache.list().expect("list")[0].valid);
        let (p, o) = cache
            .get_or_build(&key, "k", || Ok(vec![7; 100]))
            .expect("rebuild");
        assert_eq!((p.len(), o), (100, Outcome::Rebuilt));
        fs::write(&path, b"short").expect("truncate");
        let (_, o) = cache
            .get_or_build(&key, "k", || Ok(vec![7; 100]))
            .expect("rebuild");
        assert_eq!(o, Outcome::Rebuilt);
        let (_, o) = cache
            .get_or_build(&key, "k", || Ok(vec![7; 100]))
            .expect("hit");
        assert_eq!(o, Outcome::Hit);
    }

    #[test]
    fn concurrent_builders_leave_one_valid_entry() {
        let (dir, _cache) = temp_cache();
        let key = CacheKey::of(&[b"shared kernel"]);
        let builds = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..8 {
                let builds = builds.clone();
                let path = dir.path().to_path_buf();
                s.spawn(move || {
                    // Each thread opens its own handle, as separate processes would.
                    let cache = KernelCache::open(path).expect("open");
                    for _ in 0..20 {
                        let (p, _) = cache
                            .get_or_build(&key, "shared", || {
                                builds.fetch_add(1, Ordering::Relaxed);
                                Ok(vec![42u8; 4096])
                            })
                            .expect("get");
                        assert_eq!(p, vec![42u8; 4096]);
                    }
                });
            }
        });
        let cache = KernelCache::open(dir.path()).expect("open");
        let entries = cache.list().expect("list");
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert!(entries[0].valid);
        assert!(builds.load(Ordering::Relaxed) >= 1);
        let stray = fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(stray, 1, "no temporary files left behind");
    }
}
