//! `gt4rs cache list|clear`: the persistent kernel cache (`GT4RS_CACHE_DIR`, else the user's
//! cache directory; see `gt4rs::cache::KernelCache::default_dir`).

use std::io::Write;

use gt4rs::cache::KernelCache;
use gt4rs::Error;

/// Writes one line per entry (label, size, key, integrity) and a total.
pub fn list(cache: &KernelCache, out: &mut dyn Write) -> Result<(), Error> {
    let entries = cache.list()?;
    let io = |e: std::io::Error| Error::Io(e.to_string());
    writeln!(out, "cache {}", cache.dir().display()).map_err(io)?;
    let mut total = 0u64;
    for e in &entries {
        total += e.bytes;
        let label = if e.label.is_empty() { "?" } else { &e.label };
        let state = if e.valid { "" } else { "  (damaged)" };
        writeln!(
            out,
            "  {label:<40} {:>10} B  {}{state}",
            e.bytes,
            &e.key[..16.min(e.key.len())]
        )
        .map_err(io)?;
    }
    writeln!(out, "{} entries, {total} bytes", entries.len()).map_err(io)?;
    Ok(())
}

/// Removes every entry and says how many.
pub fn clear(cache: &KernelCache, out: &mut dyn Write) -> Result<(), Error> {
    let removed = cache.clear()?;
    writeln!(
        out,
        "removed {removed} entries from {}",
        cache.dir().display()
    )
    .map_err(|e| Error::Io(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gt4rs::cache::CacheKey;

    #[test]
    fn list_shows_entries_and_clear_removes_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = KernelCache::open(dir.path()).expect("opens");
        let key = CacheKey::of(&[b"source", b"sm_90"]);
        cache
            .store(&key, "nabla4 sm_90", b"ptx text")
            .expect("stores");
        let mut text = Vec::new();
        list(&cache, &mut text).expect("lists");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(text.contains("nabla4 sm_90"), "{text}");
        assert!(text.contains("1 entries"), "{text}");
        let mut text = Vec::new();
        clear(&cache, &mut text).expect("clears");
        assert!(String::from_utf8_lossy(&text).contains("removed 1 entries"));
        assert!(cache.list().expect("lists").is_empty());
    }
}
