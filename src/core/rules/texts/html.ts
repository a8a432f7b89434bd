// Event descriptions and excerpts are HTML, as WordPress' `the_content` / `the_excerpt` put them out:
// plain text written through the API is stored in paragraphs, so that reads match the reference
// (`"An event content"` → `"<p>An event content</p>"`).

const BLOCK_START =
  /^<(?:p|div|h[1-6]|ul|ol|li|dl|blockquote|pre|table|figure|section|article|aside|header|footer|nav|form|hr|address|details|fieldset|!--)[\s>/]/i;

/** A light `wpautop`: blank lines separate paragraphs, single newlines become `<br />`; HTML blocks stay. */
export function autoParagraphs(text: string): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (normalized === '') return '';
  return normalized
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => (BLOCK_START.test(block) ? block : `<p>${block.replace(/\n/g, '<br />\n')}</p>`))
    .join('\n');
}
