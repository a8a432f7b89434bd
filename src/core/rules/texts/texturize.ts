// WordPress's `wptexturize` (wp-includes/formatting.php), which every title, content and excerpt goes
// through before WordPress shows it: typographic quotes, dashes, ellipses, primes and the
// multiplication sign. Text inside HTML tags and inside <code>, <pre>, <kbd>, <script>, <style> and
// <tt> is left alone, as WordPress does. No maintained JavaScript port exists; the table of
// WordPress's own examples in test/core/rules/texturize.test.ts keeps this one honest.

const SKIPPED_TAGS = new Set(['code', 'pre', 'kbd', 'script', 'style', 'tt']);

const STATIC: Array<[string, string]> = [
  ['---', '&#8212;'],
  [' -- ', ' &#8212; '],
  ['--', '&#8211;'],
  [' - ', ' &#8211; '],
  ['...', '&#8230;'],
  ['``', '&#8220;'],
  ["''", '&#8221;'],
  [' (tm)', ' &#8482;'],
];

/** What may stand before an opening quote: the start, a space, an opening bracket or a dash. */
const OPENS = String.raw`(^|[\s([{\-"']|&#8220;|&#8216;|&#8211;|&#8212;|\u00a0)`;

const DYNAMIC: Array<[RegExp, string]> = [
  // Abbreviated years: '99, '07s.
  [/'(?=\d\d(?:s|\b))/g, '&#8217;'],
  // Opening single quote.
  [new RegExp(`${OPENS}'(?=\\S|$)`, 'g'), '$1&#8216;'],
  // Primes: 9' 6" (after a digit, before a non-word character or the end).
  [/(?<=\d)'(?=\W|$)/g, '&#8242;'],
  [/(?<=\d)"(?=\W|$)/g, '&#8243;'],
  // Opening and closing double quotes.
  [new RegExp(`${OPENS}"(?=\\S|$)`, 'g'), '$1&#8220;'],
  [/"/g, '&#8221;'],
  // Apostrophes and closing single quotes.
  [/'/g, '&#8217;'],
  // 9x9 → 9×9.
  [/(?<=\d)x(?=\d)/g, '&#215;'],
];

/** Stands for the text before a tag, so that a quote right after `</a>` closes rather than opens. */
const CONTINUES = '\uE000';

function texturizeText(text: string, continues: boolean): string {
  let result = continues ? CONTINUES + text : text;
  for (const [from, to] of STATIC) result = result.split(from).join(to);
  // `xn--` opens an internationalised domain name: never a dash.
  result = result.replace(/xn&#8211;/g, 'xn--');
  for (const [pattern, replacement] of DYNAMIC) result = result.replace(pattern, replacement);
  // A bare ampersand (not one of an entity) is written as an entity.
  result = result.replace(/&(?!#?\w+;)/g, '&#038;');
  return continues ? result.slice(CONTINUES.length) : result;
}

/** `wptexturize`: the text parts of `html` with WordPress's typography; tags and code untouched. */
export function texturize(html: string): string {
  if (!html) return html;
  const parts = html.split(/(<[^>]*>)/);
  const open: string[] = [];
  let before = '';
  return parts
    .map((part) => {
      if (part.startsWith('<') && part.endsWith('>')) {
        const tag = /^<\s*(\/)?\s*([a-z0-9]+)/i.exec(part);
        if (tag && SKIPPED_TAGS.has(tag[2]!.toLowerCase())) {
          if (tag[1]) open.pop();
          else if (!part.endsWith('/>')) open.push(tag[2]!.toLowerCase());
        }
        return part;
      }
      if (open.length) return part;
      const continues = before !== '' && !/\s$/.test(before);
      if (part !== '') before = part;
      return texturizeText(part, continues);
    })
    .join('');
}
