/**
 * The API's one value-level cache: a value per key, computed once per version of what it is read
 * from (single flight: concurrent callers of one key and version share the computation) and
 * replaced when the version moves. A value of another version is never served. Bounded: at most
 * `maxEntries` keys and, for values `sizeOf` measures, `maxBytes` bytes, the oldest stored dropped
 * first. A failed computation is not kept.
 *
 * Used under the read version (api/http/read-version.ts) for a caller's own reads and dataset
 * downloads, and under the list stamp (platform/repositories/count-cache.ts) for the public pod
 * list's totals, page boundaries and search matches.
 */
export interface VersionedValues<T> {
  get(key: string, version: string, compute: () => Promise<T>): Promise<T>;
  /** Keys held (tests). */
  size(): number;
}

export function createVersionedValues<T>({
  maxEntries = 1_000,
  maxBytes = 64 * 2 ** 20,
  sizeOf,
}: { maxEntries?: number; maxBytes?: number; sizeOf?: (value: T) => number } = {}): VersionedValues<T> {
  const entries = new Map<string, { version: string; value: Promise<T>; bytes: number }>();
  let bytes = 0;

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.bytes;
    entries.delete(key);
  };

  return {
    get(key, version, compute) {
      const kept = entries.get(key);
      if (kept?.version === version) return kept.value;
      drop(key);
      const entry = { version, value: compute(), bytes: 0 };
      entries.set(key, entry);
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        drop(oldest);
      }
      entry.value.then(
        (value) => {
          if (entries.get(key) !== entry || !sizeOf) return;
          entry.bytes = sizeOf(value);
          bytes += entry.bytes;
          if (entry.bytes > maxBytes / 4) drop(key);
          for (const oldest of entries.keys()) {
            if (bytes <= maxBytes) break;
            drop(oldest);
          }
        },
        () => {
          if (entries.get(key) === entry) drop(key);
        },
      );
      return entry.value;
    },
    size: () => entries.size,
  };
}
