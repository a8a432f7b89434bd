import slugify from '@sindresorhus/slugify';

// WordPress-style slugs: lower-case ASCII words joined by dashes, unique within their kind by a
// `-2`, `-3`, … suffix.

const MAX_SLUG_LENGTH = 200;

/** `"Café & Bar"` → `"cafe-bar"`; `fallback` when nothing slug-worthy remains. */
export function toSlug(text: string, fallback = 'untitled'): string {
  const slug = slugify(text, { decamelize: false, customReplacements: [['&', ' ']] }).slice(
    0,
    MAX_SLUG_LENGTH,
  );
  return slug.replace(/-+$/, '') || fallback;
}

/** The slug of `base`, or the first free `<slug>-N` (N ≥ 2) according to `isTaken`. */
export async function uniqueSlug(
  base: string,
  isTaken: (slug: string) => Promise<boolean>,
  fallback?: string,
): Promise<string> {
  const root = toSlug(base, fallback);
  if (!(await isTaken(root))) return root;
  for (let n = 2; ; n++) {
    const candidate = `${root}-${n}`;
    if (!(await isTaken(candidate))) return candidate;
  }
}
