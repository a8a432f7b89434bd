// Costs are stored as the sorted numeric values ("0,20,30") plus the currency symbol and position;
// the reference formats them for display.

export const DEFAULT_CURRENCY_SYMBOL = '$';

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
