import slugify from '@sindresorhus/slugify';

// WordPress-style slugs: lower-case ASCII words joined by dashes (made unique within their kind by a
// `-2`, `-3`, … suffix: `core/db/slugs.ts`).

const MAX_SLUG_LENGTH = 200;

/** `"Café & Bar"` → `"cafe-bar"`; `fallback` when nothing slug-worthy remains. */
export function toSlug(text: string, fallback = 'untitled'): string {
  const slug = slugify(text, { decamelize: false, customReplacements: [['&', ' ']] }).slice(
    0,
    MAX_SLUG_LENGTH,
  );
  return slug.replace(/-+$/, '') || fallback;
}
