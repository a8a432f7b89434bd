// Costs are stored as the sorted numeric values ("0,20,30") plus the currency symbol and position;
// the reference formats them for display.

const DEFAULT_CURRENCY_SYMBOL = '$';

export interface StoredCost {
  cost: string;
  currencySymbol: string;
  currencyPosition: string;
}

export function costValues(cost: string): string[] {
  return cost === '' ? [] : cost.split(',').map((value) => value.trim());
}

/** `"$23"`, `"20$"`, `"Free – 30$"`; `""` when there is no cost. */
export function formatCost({ cost, currencySymbol, currencyPosition }: StoredCost): string {
  const values = costValues(cost);
  if (values.length === 0) return '';
  const symbol = currencySymbol || DEFAULT_CURRENCY_SYMBOL;
  const format = (value: string): string => {
    if (Number(value) === 0) return 'Free';
    return currencyPosition === 'postfix' ? `${value}${symbol}` : `${symbol}${value}`;
  };
  const first = values[0] as string;
  const last = values[values.length - 1] as string;
  return values.length === 1 || first === last ? format(first) : `${format(first)} – ${format(last)}`;
}

// ---- Cost input (docs/reference.md §6.6) ------------------------------------------------------------------
// A string (`"$23"`, `"20$"`, `"10 - 20 €"`, `"Free"`, `"free, 20$, 30$"`), a number, or an array of
// those. The numbers are kept (sorted, each once; `Free` is 0) with the currency symbol written around
// them and its position, when every priced part agrees on one (else none, as the reference).

/** Costs that are no number, and of more than this many characters around a number, are refused. */
const MAX_SYMBOL_LENGTH = 4;
const FREE = /^free$/i;
/** `1,000` and `1.000,50` group thousands; `12,50` has a decimal comma. */
const NUMBER = /\d+(?:[.,]\d+)*/g;
const RANGE_SEPARATORS = /\s*(?:-|–|—|\bto\b)\s*/gi;

/** Why a cost input was refused (a sentence for `data.params.cost`). */
export class CostInputError extends Error {}

function normalizeNumber(text: string): string {
  let value = text;
  const lastSeparator = Math.max(value.lastIndexOf('.'), value.lastIndexOf(','));
  if (lastSeparator >= 0 && value.length - lastSeparator - 1 !== 3) {
    // The last separator is a decimal point; any others group thousands.
    value = `${value.slice(0, lastSeparator).replace(/[.,]/g, '')}.${value.slice(lastSeparator + 1)}`;
  } else {
    value = value.replace(/[.,]/g, '');
  }
  const [whole = '0', fraction] = value.split('.');
  const integer = whole.replace(/^0+(?=\d)/, '');
  return fraction === undefined ? integer : `${integer}.${fraction}`;
}

interface CostPart {
  values: string[];
  symbol: string;
  position: 'prefix' | 'postfix' | '';
}

function parseAmount(text: string): CostPart {
  if (FREE.test(text.trim())) return { values: ['0'], symbol: '', position: '' };
  const numbers = [...text.matchAll(NUMBER)];
  if (numbers.length !== 1) {
    throw new CostInputError(
      'A cost is a number with an optional currency symbol, a range ("10 - 20"), or "Free".',
    );
  }
  const [number] = numbers as [RegExpExecArray];
  const before = text.slice(0, number.index).trim();
  const after = text.slice(number.index + number[0].length).trim();
  const symbol = before || after;
  if ((before && after) || symbol.length > MAX_SYMBOL_LENGTH || /\s/.test(symbol)) {
    throw new CostInputError(`"${text.trim()}" is not a cost: only a currency symbol may stand by a number.`);
  }
  return {
    values: [normalizeNumber(number[0])],
    symbol,
    position: before ? 'prefix' : after ? 'postfix' : '',
  };
}

/** `"Free"`, `"$10"`, `"10 - 20 €"`, `"€10–€20"`: a range's ends may each carry the symbol. */
function parsePart(text: string): CostPart {
  const part = text.trim();
  const ends = part
    .split(RANGE_SEPARATORS)
    .filter((end) => end.trim() !== '')
    .map(parseAmount);
  if (!ends.length)
    throw new CostInputError(
      'A cost is a number with an optional currency symbol, a range ("10 - 20"), or "Free".',
    );
  const priced = ends.filter((end) => end.symbol !== '');
  const agreed = priced.every((end) => end.symbol === priced[0]!.symbol);
  const position = priced.some((end) => end.position === 'prefix')
    ? 'prefix'
    : priced.length
      ? 'postfix'
      : '';
  return {
    values: ends.flatMap((end) => end.values),
    symbol: agreed && priced.length ? priced[0]!.symbol : '',
    position: agreed && priced.length ? position : '',
  };
}

/** Commas separate costs, except between digits (`1,000`, `12,50`). */
function splitCosts(text: string): string[] {
  return text.split(/\s*,\s*(?!\d)|(?<!\d)\s*,\s*/).filter((part) => part.trim() !== '');
}

/**
 * A `cost` parameter → what is stored; `""` and `[]` clear it. Throws `CostInputError` for input
 * that is not a cost (free text such as "Donation" has no stored form).
 */
export function parseCostInput(input: unknown): StoredCost {
  const items = Array.isArray(input) ? input : [input];
  const parts: CostPart[] = [];
  for (const item of items) {
    if (typeof item === 'number') {
      if (!Number.isFinite(item) || item < 0) throw new CostInputError('A cost is not negative.');
      parts.push({ values: [normalizeNumber(String(item))], symbol: '', position: '' });
    } else if (typeof item === 'string') {
      for (const text of splitCosts(item)) parts.push(parsePart(text));
    } else {
      throw new CostInputError('A cost is a string, a number, or a list of them.');
    }
  }
  const byValue = new Map<number, string>();
  for (const value of parts.flatMap((part) => part.values))
    if (!byValue.has(Number(value))) byValue.set(Number(value), value);
  const values = [...byValue.entries()].sort(([a], [b]) => a - b).map(([, value]) => value);
  const priced = parts.filter((part) => part.symbol !== '');
  const agreed =
    priced.length > 0 &&
    priced.every((part) => part.symbol === priced[0]!.symbol && part.position === priced[0]!.position);
  return {
    cost: values.join(','),
    currencySymbol: agreed ? priced[0]!.symbol : '',
    currencyPosition: agreed ? priced[0]!.position : '',
  };
}
