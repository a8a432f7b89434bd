import { autop } from '@wordpress/autop';
import { LRUCache } from 'lru-cache';
import { texturize as wptexturize } from './texturize.js';

// Texts as the REST answers and JSON-LD show them (events, venues, organizers alike).

/**
 * Each page renders the same texts again (titles, the venues' and organizers' descriptions): a
 * rendering, a pure function of its text, is kept by that text, within a bound of characters.
 */
function kept(render: (text: string) => string): (text: string) => string {
  const MAX_CHARS = 1_000_000;
  const renderings = new LRUCache<string, string>({
    maxSize: MAX_CHARS,
    sizeCalculation: (rendering, text) => rendering.length + text.length || 1,
  });
  return (text) => {
    let rendering = renderings.get(text);
    if (rendering === undefined) {
      rendering = render(text);
      if (text.length + rendering.length <= MAX_CHARS / 100) renderings.set(text, rendering);
    }
    return rendering;
  };
}

/** `wptexturize` (core/rules/texts/texturize.ts), as every REST title, content and excerpt shows it. */
export const texturize = kept(wptexturize);

/** A description as WordPress renders it (`wpautop`), trimmed as the REST fields show it. */
export const renderedText = kept((text) => wptexturize(autop(text).trim()));

/**
 * A description in JSON-LD as TEC writes it: the rendered HTML escaped, then a newline that TEC's
 * double JSON encoding leaves as the two characters `\n` (tec-samples/04: `&lt;p&gt;Hello&lt;/p&gt;\n`).
 */
export function jsonLdDescription(html: string): string {
  return html ? `${escapeHtml(html)}\\n` : '';
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
