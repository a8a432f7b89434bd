// CSV as RFC 4180 writes it (comma-separated, CRLF line ends, a cell quoted when it holds a quote, a
// comma or a line break), with spreadsheet formula injection defused (OWASP "CSV Injection"): a text
// cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return would be read as a formula by
// Excel, LibreOffice or Google Sheets, so it is prefixed with `'`, which they show as text.
// Written here rather than with a CSV library: quoting is the whole of it.

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: numbers as they are, text defused and quoted as needed. */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A document: a header row, then one row per record, each line ended by CRLF. */
export function csvDocument(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
