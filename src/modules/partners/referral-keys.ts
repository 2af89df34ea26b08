/**
 * A new partner's default referral key (operations.md §18): the name in lower case, each run of
 * characters other than a-z 0-9 _ - replaced by `-`, trimmed of `-`, cut to 47 (room for `-NN`);
 * the first 8 characters of the id when that leaves fewer than 3.
 */
export function keyStem(name: string, id: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 47)
    // The cut may leave a `-` at the end again.
    .replace(/-+$/g, '');
  return slug.length >= 3 ? slug : id.slice(0, 8);
}

/**
 * Picks each stem's key in order: the stem when free, else `stem-2`, `stem-3`… The chosen keys
 * join `taken` (lower-cased keys), so two partners of one request never share one.
 */
export function freeKeys(stems: string[], taken: Set<string>): string[] {
  const next = new Map<string, number>();
  return stems.map((stem) => {
    let key = stem;
    for (let n = next.get(stem) ?? 2; taken.has(key); n++) {
      key = `${stem}-${n}`;
      next.set(stem, n + 1);
    }
    taken.add(key);
    return key;
  });
}
